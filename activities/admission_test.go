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

// A worker's slots stay at twice the machine's CPUs when GOMAXPROCS is
// lower, as the chart sets it from a worker's CPU request: halving them
// with GOMAXPROCS left the cores idle in the lab-scale run.
func TestActivitySlotsIgnoreGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if got, d := ActivitySlots(), DefaultAdmission(); got != 2*runtime.NumCPU() || d.Slots != got {
		t.Errorf("GOMAXPROCS 1 on %d CPUs: %d activity slots, default admission %d; want %d", runtime.NumCPU(), got, d.Slots, 2*runtime.NumCPU())
	}
}
