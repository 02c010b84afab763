package activities

import (
	"context"
	"errors"
	"io"

	"go.temporal.io/sdk/activity"

	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
)

// reusable reports whether the output stored under key (a model output,
// a track, an evaluation) can stand for computing it again: it is stored and its bytes
// match the sum recorded for it, read to the end through the store. A
// corrupt one is computed again and overwritten, and the worker's log
// (in process: a.Log, the command's stderr) names its key and both sums
// (docs/operations.md#limits-and-safety).
func (a *Activities) reusable(ctx context.Context, key string) (bool, error) {
	r, err := a.Store.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer r.Close()
	_, err = io.Copy(io.Discard, r)
	if bad := (*store.Corrupt)(nil); errors.As(err, &bad) {
		if activity.IsActivity(ctx) {
			activity.GetLogger(ctx).Warn("computing a corrupt stored output again", "key", key, "error", err.Error())
		} else if a.Log != nil {
			a.Log.Warn("computing a corrupt stored output again", "key", key, "error", err.Error())
		}
		return false, nil
	}
	return err == nil, err
}

// tracksStored reports whether a conversation's tracks of the tasks sys
// scores are all stored and sound. The last task's track is stored last,
// so one that is missing is found without reading the others.
func (a *Activities) tracksStored(ctx context.Context, sys sweep.SystemRef, corpusHash, conv string) (bool, error) {
	tasks := sys.ScoredTasks()
	for i := len(tasks) - 1; i >= 0; i-- {
		if ok, err := a.reusable(ctx, keys.Track(sys.Hash, corpusHash, conv, tasks[i])); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}
