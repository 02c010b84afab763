package backoff

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// The waits double from First and stop growing at Max; without a Max
// they keep doubling.
func TestDoublingDoublesUpToMax(t *testing.T) {
	for _, c := range []struct {
		d    Doubling
		want []time.Duration
	}{
		{Doubling{First: time.Second, Max: 5 * time.Second}, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}},
		{Doubling{First: 10 * time.Millisecond}, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond, 160 * time.Millisecond}},
	} {
		var got []time.Duration
		for range c.want {
			got = append(got, c.d.Next())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v: waits %v, want %v", c.d, got, c.want)
		}
	}
}

// Sleep waits its whole time, or returns the context's error when the
// context ends first.
func TestSleepEndsWithTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := Sleep(t.Context(), time.Minute); err != nil || time.Since(start) != time.Minute {
			t.Errorf("Sleep = %v after %v, want nil after 1m", err, time.Since(start))
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start = time.Now()
		if err := Sleep(ctx, time.Minute); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Second {
			t.Errorf("Sleep = %v after %v, want the deadline after 1s", err, time.Since(start))
		}
	})
}
