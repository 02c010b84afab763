package activities

import "runtime"

// Admission is how much work one process takes on at once, the same for a
// worker (temporalclient.StartWorkers) and for the in-process executor
// (inprocess.Run): at most Slots activities at once on each task queue,
// and the memory-heavy steps inside them admitted against Memory. The
// zero value runs ActivitySlots activities per queue with unbounded
// memory.
type Admission struct {
	Slots  int           // 0: ActivitySlots()
	Memory *MemoryBudget // nil: unbounded
}

// DefaultAdmission is what a worker admits unless told otherwise:
// ActivitySlots activities per queue within DefaultMemoryBytes.
func DefaultAdmission() Admission {
	return Admission{Slots: ActivitySlots(), Memory: NewMemoryBudget(DefaultMemoryBytes())}
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

// PerQueue is how many activities run at once on each task queue.
func (ad Admission) PerQueue() int {
	if ad.Slots > 0 {
		return ad.Slots
	}
	return ActivitySlots()
}

// Admitting is a's activities admitting against ad's memory budget.
func (ad Admission) Admitting(a *Activities) *Activities {
	if ad.Memory == nil {
		return a
	}
	c := *a
	c.Memory = ad.Memory
	return &c
}
