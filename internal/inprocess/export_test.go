package inprocess

import (
	"context"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/sweep"
)

// RunObserved is Run telling observe of every activity
// (its name and input) as it starts it.
func RunObserved(ctx context.Context, in sweep.Input, a *activities.Activities, ad activities.Admission, observe func(string, any)) (string, error) {
	return (&inProcess{in: in, a: ad.Admitting(a), slots: newQueueSlots(ad), observe: observe}).run(ctx)
}
