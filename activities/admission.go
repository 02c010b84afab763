package orchestrate

import (
	"context"
	"runtime"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/floorbench/floorbench/activities"
)

// Admission is how much work one process takes on at once, the same for a
// worker (StartWorkers) and for the in-process runner (RunInProcess): at
// most Slots activities at once on each task queue, and the memory-heavy
// steps inside them admitted against Memory. The zero value runs
// ActivitySlots activities per queue with unbounded memory.
type Admission struct {
	Slots  int                      // 0: ActivitySlots()
	Memory *activities.MemoryBudget // nil: unbounded
}

// DefaultAdmission is what a worker admits unless told otherwise:
// ActivitySlots activities per queue within activities.DefaultMemoryBytes.
func DefaultAdmission() Admission {
	return Admission{Slots: ActivitySlots(), Memory: activities.NewMemoryBudget(activities.DefaultMemoryBytes())}
}

// ActivitySlots is how many activities one queue's worker runs at once:
// twice the machine's CPUs, even where GOMAXPROCS is lower (the chart sets
// it from a worker's CPU request): inference and the VADs run in C threads
// that GOMAXPROCS does not bound, and three workers sharing two cores at
// GOMAXPROCS 1 ran the full lab-scale sweep in 581 s with four slots each
// but 630 s with two, the cores idle between one queue's work and the
// next (docs/performance.md#lab-scale). floorbench's activities are
// CPU-bound (synthesis, inference, scoring); with the SDK's default of
// 1,000, a full-preset sweep at concurrency 64 ran 64 inference batches at
// once on two cores, each too slow to heartbeat within its minute, so every
// one timed out and was retried, and the sweep never finished. Activities
// beyond the slots wait in the task queue, where no heartbeat is due.
func ActivitySlots() int { return 2 * runtime.NumCPU() }

func (ad Admission) slots() int {
	if ad.Slots > 0 {
		return ad.Slots
	}
	return ActivitySlots()
}

// activities are a's activities admitting against ad's memory budget.
func (ad Admission) activities(a *activities.Activities) *activities.Activities {
	if ad.Memory == nil {
		return a
	}
	c := *a
	c.Memory = ad.Memory
	return &c
}

// queueSlots are the in-process counterpart of a worker's activity slots:
// one semaphore of the admission's slots per task queue.
type queueSlots struct {
	n    int64
	mu   sync.Mutex
	sems map[string]*semaphore.Weighted
}

func newQueueSlots(ad Admission) *queueSlots {
	return &queueSlots{n: int64(ad.slots()), sems: map[string]*semaphore.Weighted{}}
}

// run runs an activity once a slot of its queue is free, as a worker
// polling that queue would.
func (q *queueSlots) run(ctx context.Context, queue string, activity func(context.Context) error) error {
	q.mu.Lock()
	sem, ok := q.sems[queue]
	if !ok {
		sem = semaphore.NewWeighted(q.n)
		q.sems[queue] = sem
	}
	q.mu.Unlock()
	if err := sem.Acquire(ctx, 1); err != nil {
		return err
	}
	defer sem.Release(1)
	return activity(ctx)
}
