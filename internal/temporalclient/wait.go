package temporalclient

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/floorbench/floorbench/internal/backoff"
	"github.com/floorbench/floorbench/internal/config"
)

// Backoff is how a worker waits for Temporal: First after the first
// failed attempt, doubling up to Max.
type Backoff struct {
	First, Max time.Duration
}

// DefaultBackoff retries after 1 s, 2 s, 4 s, ... and then every 30 s: a
// worker started before Temporal, or while it restarts, is polling within
// 30 s of Temporal answering.
var DefaultBackoff = Backoff{First: time.Second, Max: 30 * time.Second}

// DialWaiting dials Temporal as Dial does, and while Temporal cannot be
// reached (not listening yet, restarting, a timeout) waits and tries
// again with backoff, logging each wait and telling waiting why it is not
// connected yet (for the worker's readiness). It returns at once on an
// error that waiting does not cure (a malformed address, credentials or
// TLS Temporal refuses: a configuration error) or when ctx ends.
func DialWaiting(ctx context.Context, c config.Config, b Backoff, log *slog.Logger, waiting func(error)) (client.Client, error) {
	if err := c.CheckTemporalAddress(); err != nil {
		return nil, err
	}
	delays := backoff.Doubling{First: b.First, Max: b.Max}
	for attempt := 1; ; attempt++ {
		cl, err := Dial(ctx, c)
		if err == nil {
			if attempt > 1 {
				log.Info("reached Temporal", "address", c.TemporalAddress, "attempts", attempt)
			}
			return cl, nil
		}
		if !transient(err) || ctx.Err() != nil {
			return nil, err
		}
		waiting(err)
		delay := delays.Next()
		log.Warn("waiting for Temporal", "address", c.TemporalAddress, "attempt", attempt, "retry_in", delay.String(), "error", err.Error())
		if err := backoff.Sleep(ctx, delay); err != nil {
			return nil, err
		}
	}
}

// transient reports whether a failed dial may succeed later: Temporal not
// listening or not answering yet. Refused credentials, a namespace that
// does not exist and malformed settings are not.
func transient(err error) bool {
	var unavailable *serviceerror.Unavailable
	var deadline *serviceerror.DeadlineExceeded
	var exhausted *serviceerror.ResourceExhausted
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &unavailable) || errors.As(err, &deadline) || errors.As(err, &exhausted) {
		return true
	}
	var se interface{ GRPCStatus() *status.Status }
	if errors.As(err, &se) {
		switch se.GRPCStatus().Code() {
		case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted:
			return true
		}
	}
	return false
}
