package nightly

import (
	"context"
	"encoding/json"
	"time"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/webhook"
)

// BaselineOf is the bundle a run of schedule scheduled at t is judged
// against: baseline itself when it is a pinned bundle id, else the bundle
// of the previous successful run ("": none, a first run).
func BaselineOf(ctx context.Context, st store.Store, schedule string, t time.Time, baseline string) (string, error) {
	if baseline != BaselinePrevious {
		return baseline, nil
	}
	prev, ok, err := Previous(ctx, st, schedule, t)
	if err != nil || !ok {
		return "", err
	}
	return prev.BundleID, nil
}

// RecordVerdict writes a judged run's folder for the run scheduled at t:
// verdict.json, verdict.md and run.json, run.json last (Runs lists a run
// by its run.json, so a listed run has its verdict). It returns the
// folder.
func RecordVerdict(ctx context.Context, st store.Store, t time.Time, run Run, v *compare.Verdict) (string, error) {
	prefix := keys.ScheduleRun(run.Schedule, t)
	verdictJSON, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return "", err
	}
	runJSON, err := json.MarshalIndent(run, "", " ")
	if err != nil {
		return "", err
	}
	for _, f := range []bundle.File{{Name: VerdictFile, Data: append(verdictJSON, '\n')},
		{Name: VerdictMarkdown, Data: v.Markdown()}, {Name: RunFile, Data: append(runJSON, '\n')}} {
		if err := store.PutBytes(ctx, st, prefix+f.Name, f.Data); err != nil {
			return "", err
		}
	}
	return prefix, nil
}

// RecordFailure writes run.json of a run scheduled at t that failed
// before its verdict: no bundle, no verdict, the error.
func RecordFailure(ctx context.Context, st store.Store, t time.Time, run Run) error {
	data, err := json.MarshalIndent(run, "", " ")
	if err != nil {
		return err
	}
	return store.PutBytes(ctx, st, keys.ScheduleRun(run.Schedule, t)+RunFile, append(data, '\n'))
}

// RecordNotification writes notify.json into a run's folder with the URL
// masked (webhook.Mask): the real one lives only in the schedule, where
// the sender needs it.
func RecordNotification(ctx context.Context, st store.Store, prefix string, n Notification) error {
	n.URL = webhook.Mask(n.URL)
	data, err := json.MarshalIndent(n, "", " ")
	if err != nil {
		return err
	}
	return store.PutBytes(ctx, st, prefix+NotifyFile, append(data, '\n'))
}
