package proto

import (
	"context"
	"testing"
	"time"
)

// A clock waits until its session time has come, never short of it, and
// a rate outside (0, MaxRate] is refused with one line.
func TestClockWaitsUntilItsTime(t *testing.T) {
	c, err := NewClock(MaxRate)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Duration{0, time.Nanosecond, 20 * time.Millisecond, 333 * time.Millisecond} {
		if err := c.WaitUntil(context.Background(), at); err != nil {
			t.Fatal(err)
		}
		if now := c.Now(); now < at {
			t.Errorf("WaitUntil(%v) returned at %v", at, now)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.WaitUntil(ctx, time.Hour); err != context.Canceled {
		t.Errorf("a cancelled wait: %v", err)
	}
	for _, rate := range []float64{-1, MaxRate + 1} {
		if _, err := NewClock(rate); err == nil {
			t.Errorf("rate %v accepted", rate)
		}
	}
	if c, _ := NewClock(0); c.Rate() != 1 {
		t.Errorf("rate 0 gave %v, want 1", c.Rate())
	}
}
