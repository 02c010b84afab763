// Package backoff is the one back-off of floorbench's retry loops (trials
// and seated sessions, a worker waiting for Temporal, the OpenAI-compatible
// client): a wait that doubles after each try up to a cap, and a sleep
// that ends with the context. What is retried, how often and what is
// logged stays with each loop.
package backoff

import (
	"context"
	"time"
)

// Doubling gives the waits between tries: First, then twice the wait
// before, never more than Max (no cap when Max is 0). The zero value waits
// nothing.
type Doubling struct {
	First, Max time.Duration
	next       time.Duration
	started    bool
}

// Next returns the wait before the next try and doubles the one after it.
func (d *Doubling) Next() time.Duration {
	if !d.started {
		d.next, d.started = d.First, true
	}
	w := d.next
	d.next = 2 * d.next
	if d.Max > 0 {
		d.next = min(d.next, d.Max)
	}
	return w
}

// Sleep waits d, or until ctx ends and then returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
