package proto

import (
	"context"
	"fmt"
	"time"
)

// MaxRate bounds the playback rate: at 50 times real time a 20 ms frame
// lasts 0.4 ms of wall time, about what a loaded test machine can keep.
const MaxRate = 50

// Clock is a session's time: the wall time since the clock started times
// its rate. At rate 1 (real evaluations) session time is wall time; tests
// run both sides at a higher rate, so a 10 s trial takes 10/r s. Audio
// positions, frame slots and deadlines of a session are all in session
// time, so a rate changes how long a session takes and nothing it computes
// from audio (docs/agents.md#playback-rate).
type Clock struct {
	start time.Time
	rate  float64
}

// CheckRate reports a playback rate outside (0, MaxRate].
func CheckRate(rate float64) error {
	if !(rate > 0 && rate <= MaxRate) {
		return fmt.Errorf("playback rate %v: must be above 0 and at most %d", rate, MaxRate)
	}
	return nil
}

// NewClock starts a clock at session time 0 now. A rate of 0 means 1.
func NewClock(rate float64) (*Clock, error) {
	if rate == 0 {
		rate = 1
	}
	if err := CheckRate(rate); err != nil {
		return nil, err
	}
	return &Clock{start: time.Now(), rate: rate}, nil
}

// Rate is how many seconds of session time pass in one second of wall time.
func (c *Clock) Rate() float64 { return c.rate }

// Now is the session time.
func (c *Clock) Now() time.Duration {
	return time.Duration(float64(time.Since(c.start)) * c.rate)
}

// Wall is how long d of session time lasts on the wall.
func (c *Clock) Wall(d time.Duration) time.Duration {
	return time.Duration(float64(d) / c.rate)
}

// WaitUntil returns once the session time is at least t, or with ctx's
// error.
func (c *Clock) WaitUntil(ctx context.Context, t time.Duration) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		ahead := t - c.Now()
		if ahead <= 0 {
			return nil
		}
		// One more microsecond of wall time: rounding must not leave the
		// clock a nanosecond short of t.
		timer := time.NewTimer(c.Wall(ahead) + time.Microsecond)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		}
	}
}

// WithTimeout is context.WithTimeout for d of session time.
func (c *Clock) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.Wall(d))
}
