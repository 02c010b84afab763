package agent

import (
	"context"
	"time"

	"github.com/floorbench/floorbench/internal/backoff"
)

// Retry calls try up to attempts times, until a call succeeds or its error
// is permanent (permanent may be nil: none is), waiting wait before the
// second call and twice as long before each next one: how a trial or a
// seated session is retried. It returns nil after a call that succeeded,
// ctx's error once ctx has ended, and else the last call's error.
func Retry(ctx context.Context, attempts int, wait time.Duration, permanent func(error) bool, try func() error) error {
	waits := backoff.Doubling{First: wait}
	var err error
	for attempt := range attempts {
		if attempt > 0 {
			if err := backoff.Sleep(ctx, waits.Next()); err != nil {
				return err
			}
		}
		if err = try(); err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if permanent != nil && permanent(err) {
			return err
		}
	}
	return err
}
