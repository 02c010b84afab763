package inprocess

import (
	"context"
	"testing"
	"time"

	"github.com/floorbench/floorbench/activities"
)

// The in-process executor admits activities per task queue as a worker
// does: with the slots of one queue taken, an activity on that queue
// does not start (its wait ends with its context), while an activity on
// another queue runs; once a slot is freed the queue runs again.
func TestQueueSlotsAdmitPerQueue(t *testing.T) {
	ctx := context.Background()
	q := newQueueSlots(activities.Admission{Slots: 2})
	release := make(chan struct{})
	running := make(chan struct{})
	for range 2 {
		go q.run(ctx, "cpu", func(context.Context) error {
			running <- struct{}{}
			<-release
			return nil
		})
		<-running
	}
	ran := false
	activity := func(context.Context) error {
		ran = true
		return nil
	}
	if err := q.run(ctx, "gpu", activity); err != nil || !ran {
		t.Fatalf("an activity on another queue: ran %v, %v", ran, err)
	}
	ran = false
	waiting, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := q.run(waiting, "cpu", activity); err == nil || ran {
		t.Fatalf("a third activity on a queue of two slots, both taken: ran %v, %v", ran, err)
	}
	release <- struct{}{}
	if err := q.run(ctx, "cpu", activity); err != nil || !ran {
		t.Fatalf("an activity after a slot was freed: ran %v, %v", ran, err)
	}
	release <- struct{}{}
}
