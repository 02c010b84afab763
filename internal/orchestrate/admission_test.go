package orchestrate

import (
	"context"
	"testing"

	"github.com/floorbench/floorbench/activities"
)

// The in-process runner admits activities per task queue as a worker
// does: with the slots of one queue taken, an activity on that queue
// waits until one is freed, while an activity on another queue runs.
func TestQueueSlotsAdmitPerQueue(t *testing.T) {
	ctx := context.Background()
	q := newQueueSlots(Admission{Slots: 2})
	release := make(chan struct{})
	running := make(chan struct{})
	hold := func(context.Context) error {
		running <- struct{}{}
		<-release
		return nil
	}
	for range 2 {
		go q.run(ctx, "cpu", hold)
		<-running
	}
	third := make(chan struct{})
	go q.run(ctx, "cpu", func(context.Context) error {
		close(third)
		return nil
	})
	if err := q.run(ctx, "gpu", func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-third:
		t.Fatal("a third activity ran on a queue of two slots while both were taken")
	default:
	}
	release <- struct{}{}
	<-third
	release <- struct{}{}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	q1 := newQueueSlots(Admission{Slots: 1})
	go q1.run(ctx, "cpu", hold)
	<-running
	if err := q1.run(cancelled, "cpu", func(context.Context) error { return nil }); err == nil {
		t.Error("an activity waiting for a slot ignores its cancelled context")
	}
	release <- struct{}{}
}

// The zero admission runs ActivitySlots per queue with the activities'
// own memory budget; a budget given replaces it on a copy.
func TestAdmissionDefaults(t *testing.T) {
	if got := newQueueSlots(Admission{}).n; got != int64(ActivitySlots()) {
		t.Errorf("zero admission: %d slots, want %d", got, ActivitySlots())
	}
	a := &activities.Activities{}
	if (Admission{}).activities(a) != a {
		t.Error("an admission without a budget copied the activities")
	}
	budget := activities.NewMemoryBudget(1 << 30)
	if got := (Admission{Memory: budget}).activities(a); got.Memory != budget || a.Memory != nil {
		t.Errorf("budget %v on the copy, %v on the original", got.Memory, a.Memory)
	}
	if d := DefaultAdmission(); d.Slots != ActivitySlots() || d.Memory == nil || d.Memory.Bytes() != max(activities.DefaultMemoryBytes(), 64<<20) {
		t.Errorf("default admission %+v", d)
	}
}
