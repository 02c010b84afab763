package orchestrate

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/workflows"
)

// Scheduled resolves the specs of scheduled runs on the worker that runs
// them (docs/architecture.md#workflows): what changes from night to
// night (a model file replaced at the same path, a system spec edited, a
// corpus folder updated, the worker's own code) is read when the run
// starts, not when the schedule was created.
type Scheduled struct {
	acts *activities.Activities
}

// ResolveScheduled reads a stored spec and resolves it as submit does
// (Resolve, then Upload): system specs, model files and local corpora are
// read where the spec points, hashed and stored, and the worker's code
// version is stamped. Only paths under the worker's schedule root are
// read (checkScheduleRoot). A spec or a path that does not resolve fails
// at once.
func (s Scheduled) ResolveScheduled(ctx context.Context, in workflows.ResolveScheduledInput) (workflows.SweepInput, error) {
	data, err := store.GetBytes(ctx, s.acts.Store, in.SpecKey)
	if errors.Is(err, store.ErrNotFound) {
		return workflows.SweepInput{}, badInput("scheduled spec %s: %v", in.SpecKey, err)
	} else if err != nil {
		return workflows.SweepInput{}, err
	}
	sw, err := spec.Parse(in.SpecKey, data)
	if err != nil {
		return workflows.SweepInput{}, badInput("%v", err)
	}
	if err := checkScheduleRoot(sw, s.acts.ScheduleRoot, s.acts.Runtime); err != nil {
		return workflows.SweepInput{}, badInput("%s: %v", in.SpecKey, err)
	}
	sweep, err := Resolve(sw, s.acts.Runtime)
	if err != nil {
		return workflows.SweepInput{}, badInput("%s: %v", in.SpecKey, err)
	}
	if err := Upload(ctx, s.acts.Store, &sweep, s.acts.Runtime); err != nil {
		return workflows.SweepInput{}, err
	}
	return sweep, nil
}

func badInput(format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, args...), "BadInput", nil)
}

func registerScheduled(w worker.Worker, acts *activities.Activities) {
	w.RegisterActivityWithOptions(Scheduled{acts}.ResolveScheduled, activity.RegisterOptions{Name: workflows.ResolveScheduledActivity})
}
