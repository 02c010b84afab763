package inprocess

import (
	"context"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/floorbench/floorbench/activities"
)

// queueSlots are the in-process counterpart of a worker's activity slots:
// one semaphore of the admission's slots per task queue.
type queueSlots struct {
	n    int64
	mu   sync.Mutex
	sems map[string]*semaphore.Weighted
}

func newQueueSlots(ad activities.Admission) *queueSlots {
	return &queueSlots{n: int64(ad.PerQueue()), sems: map[string]*semaphore.Weighted{}}
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
