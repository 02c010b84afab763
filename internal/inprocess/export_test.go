package orchestrate

import (
	"context"
	"time"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/workflows"
)

// RunInProcessObserved is RunInProcess telling observe of every activity
// (its name and input) as it starts it.
func RunInProcessObserved(ctx context.Context, in workflows.SweepInput, a *activities.Activities, ad Admission, observe func(string, any)) (string, error) {
	return (&inProcess{in: in, a: ad.activities(a), slots: newQueueSlots(ad), observe: observe}).run(ctx)
}

// NewScheduled is the worker's resolver of scheduled specs over a.
func NewScheduled(a *activities.Activities) Scheduled { return Scheduled{a} }

// SetWatchWait makes Watch call wait instead of waiting; restore puts the
// real wait back.
func SetWatchWait(wait func(context.Context, time.Duration) error) (restore func()) {
	old := watchWait
	watchWait = wait
	return func() { watchWait = old }
}
