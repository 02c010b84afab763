package orchestrate

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/floorbench/floorbench/activities"
)

// The in-process runner admits activities per task queue as a worker
// does: with the slots of one queue taken, an activity on that queue
// does not start (its wait ends with its context), while an activity on
// another queue runs; once a slot is freed the queue runs again.
func TestQueueSlotsAdmitPerQueue(t *testing.T) {
	ctx := context.Background()
	q := newQueueSlots(Admission{Slots: 2})
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

// A worker's slots follow the cores its Go code runs on, not the machine's:
// the chart sets GOMAXPROCS from each worker's CPU request, so a worker
// requesting one core on a 64-core node runs two activities per queue
// rather than 128, each of which would have to heartbeat within its minute.
func TestActivitySlotsFollowGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if got := ActivitySlots(); got != 2 {
		t.Errorf("GOMAXPROCS 1: %d activity slots, want 2", got)
	}
	runtime.GOMAXPROCS(3)
	if got, d := ActivitySlots(), DefaultAdmission(); got != 6 || d.Slots != 6 {
		t.Errorf("GOMAXPROCS 3: %d activity slots, default admission %d; want 6", got, d.Slots)
	}
}
