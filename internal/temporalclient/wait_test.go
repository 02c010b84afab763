package temporalclient

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/config"
)

// While nothing listens at the address the dial waits and tries again,
// logging each wait, until its context ends; a malformed address is a
// configuration error at once.
func TestDialWaitingRetriesUntilTemporalAnswers(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var log bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var waits []error
	_, err = DialWaiting(ctx, config.Config{TemporalAddress: addr, Namespace: "default"}, Backoff{First: time.Millisecond, Max: 4 * time.Millisecond},
		slog.New(slog.NewTextHandler(&log, nil)), func(err error) {
			if waits = append(waits, err); len(waits) == 4 {
				cancel()
			}
		})
	if !errors.Is(err, context.Canceled) || len(waits) != 4 || !strings.Contains(waits[0].Error(), "connection refused") {
		t.Fatalf("returned %v after %d waits (%v)", err, len(waits), waits)
	}
	if n := strings.Count(log.String(), "waiting for Temporal"); n != 4 || !strings.Contains(log.String(), "retry_in=4ms") {
		t.Errorf("%d waits logged:\n%s", n, log.String())
	}
	_, err = DialWaiting(context.Background(), config.Config{TemporalAddress: "nohost"}, DefaultBackoff, slog.Default(), func(error) { t.Error("waited on a malformed address") })
	var ce *config.ConfigError
	if !errors.As(err, &ce) {
		t.Errorf("malformed address: %v", err)
	}
}
