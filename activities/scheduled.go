package activities

import (
	"context"
	"errors"

	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
)

// ResolveScheduled resolves the stored spec of a scheduled run on the
// worker that runs it (docs/architecture.md#workflows), as submit does
// (sweep.Resolve, then Upload): what changes from night to night (a model
// file replaced at the same path, a system spec edited, a corpus folder
// updated, the worker's own code) is read when the run starts, not when
// the schedule was created. System specs, model files and local corpora
// are read where the spec points, hashed and stored, and the worker's code
// version is stamped. Only paths under the worker's schedule root are
// read (checkScheduleRoot). A spec or a path that does not resolve fails
// at once.
func (a *Activities) ResolveScheduled(ctx context.Context, in sweep.ResolveScheduledInput) (sweep.Input, error) {
	data, err := store.GetBytes(ctx, a.Store, in.SpecKey)
	if errors.Is(err, store.ErrNotFound) {
		return sweep.Input{}, badInput("scheduled spec %s: %v", in.SpecKey, err)
	} else if err != nil {
		return sweep.Input{}, err
	}
	sw, err := spec.Parse(in.SpecKey, data, a.Limits.OrDefault())
	if err != nil {
		return sweep.Input{}, badInput("%v", err)
	}
	if err := checkScheduleRoot(sw, a.ScheduleRoot, a.Runtime); err != nil {
		return sweep.Input{}, badInput("%s: %v", in.SpecKey, err)
	}
	resolved, err := sweep.Resolve(sw, a.Runtime)
	if err != nil {
		return sweep.Input{}, badInput("%s: %v", in.SpecKey, err)
	}
	if err := Upload(ctx, a.Store, &resolved, a.Runtime); err != nil {
		return sweep.Input{}, err
	}
	return resolved, nil
}
