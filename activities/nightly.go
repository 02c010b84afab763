package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/version"
)

// VerdictInput is one scheduled run's bundle to judge against its
// baseline.
type VerdictInput struct {
	Schedule   string
	Scheduled  time.Time
	WorkflowID string
	BundleID   string
	// Baseline is nightly.BaselinePrevious or a pinned bundle id.
	Baseline    string
	Tolerance   float64
	SpecKey     string
	SpecHash    string
	CodeVersion string
}

// VerdictResult is what a run found.
type VerdictResult struct {
	Baseline string                 `json:"baseline_bundle"`
	Counts   map[bundle.Outcome]int `json:"verdict_counts"`
	// Prefix is the run's folder in the store.
	Prefix string `json:"prefix"`
}

// Verdict compares a scheduled run's bundle with its baseline (the
// schedule's previous successful run, or a pinned bundle) with the paired
// conversation bootstrap of bundle.Paired and stores verdict.json,
// verdict.md and run.json in the run's folder, run.json last. A first run
// without a previous one finds every system new.
func (a *Activities) Verdict(ctx context.Context, in VerdictInput) (VerdictResult, error) {
	prefix := nightly.RunPrefix(in.Schedule, in.Scheduled)
	cur, err := nightly.ReadResults(ctx, a.Store, in.BundleID)
	if err != nil {
		return VerdictResult{}, err
	}
	baseline := in.Baseline
	if baseline == nightly.BaselinePrevious {
		prev, ok, err := nightly.Previous(ctx, a.Store, in.Schedule, in.Scheduled)
		if err != nil {
			return VerdictResult{}, err
		}
		baseline = ""
		if ok {
			baseline = prev.BundleID
		}
	}
	old := &bundle.Results{}
	if baseline != "" {
		if old, err = nightly.ReadResults(ctx, a.Store, baseline); errors.Is(err, store.ErrNotFound) {
			return VerdictResult{}, badInput("baseline %v", err)
		} else if err != nil {
			return VerdictResult{}, err
		}
	}
	v := bundle.Paired(old, cur, bundle.PairedOptions{Tolerance: in.Tolerance})
	manifest, err := readManifest(ctx, a.Store, in.BundleID)
	if err != nil {
		return VerdictResult{}, err
	}
	run := nightly.Run{Schedule: in.Schedule, Scheduled: in.Scheduled.UTC().Format(time.RFC3339), WorkflowID: in.WorkflowID,
		BundleID: in.BundleID, SpecKey: in.SpecKey, SpecHash: in.SpecHash, CodeVersion: in.CodeVersion,
		Inputs: manifest.Inputs, Baseline: baseline, Counts: v.Counts}
	verdictJSON, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return VerdictResult{}, err
	}
	runJSON, err := json.MarshalIndent(run, "", " ")
	if err != nil {
		return VerdictResult{}, err
	}
	for _, f := range []bundle.File{{Name: nightly.VerdictFile, Data: append(verdictJSON, '\n')},
		{Name: nightly.VerdictMarkdown, Data: v.Markdown()}, {Name: nightly.RunFile, Data: append(runJSON, '\n')}} {
		if err := store.PutBytes(ctx, a.Store, prefix+f.Name, f.Data); err != nil {
			return VerdictResult{}, err
		}
	}
	return VerdictResult{Baseline: baseline, Counts: v.Counts, Prefix: prefix}, nil
}

// FailedRunInput is a scheduled run that failed before its verdict.
type FailedRunInput struct {
	Schedule   string
	Scheduled  time.Time
	WorkflowID string
	SpecKey    string
	// SpecHash and CodeVersion are empty when the spec did not resolve;
	// the record then names this worker's code version.
	SpecHash    string
	CodeVersion string
	Error       string
}

// RecordFailedRun writes run.json of a failed run: no bundle, no verdict,
// the error. A run that failed stays visible in schedule show and
// schedule history instead of leaving a gap.
func (a *Activities) RecordFailedRun(ctx context.Context, in FailedRunInput) error {
	if in.CodeVersion == "" {
		in.CodeVersion = version.Code()
	}
	run := nightly.Run{Schedule: in.Schedule, Scheduled: in.Scheduled.UTC().Format(time.RFC3339), WorkflowID: in.WorkflowID,
		SpecKey: in.SpecKey, SpecHash: in.SpecHash, CodeVersion: in.CodeVersion, Error: in.Error}
	data, err := json.MarshalIndent(run, "", " ")
	if err != nil {
		return err
	}
	return store.PutBytes(ctx, a.Store, nightly.RunPrefix(in.Schedule, in.Scheduled)+nightly.RunFile, append(data, '\n'))
}

func readManifest(ctx context.Context, st store.Store, id string) (*bundle.Manifest, error) {
	data, err := store.GetBytes(ctx, st, keys.Bundle(id, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", id, err)
	}
	var m bundle.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, corrupt(keys.Bundle(id, "manifest.json"), err)
	}
	return &m, nil
}

// NotifyInput posts a run's verdict.json to a webhook.
type NotifyInput struct {
	URL    string
	Prefix string // the run's folder
}

// notifyTimeout bounds one POST: a webhook that hangs is one failed
// attempt, not a stuck run.
const notifyTimeout = 10 * time.Second

// Notify POSTs the run's verdict.json to the webhook and returns the
// attempt that succeeded; anything but a 2xx answer is an error, which
// Temporal retries with backoff.
func (a *Activities) Notify(ctx context.Context, in NotifyInput) (int, error) {
	body, err := store.GetBytes(ctx, a.Store, in.Prefix+nightly.VerdictFile)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, notifyTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.URL, bytes.NewReader(body))
	if err != nil {
		return 0, badInput("--notify %s: %v", in.URL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return 0, fmt.Errorf("webhook %s answered %s", in.URL, resp.Status)
	}
	return attempt(ctx), nil
}

// NotificationInput is the outcome of a run's notification.
type NotificationInput struct {
	Prefix       string
	Notification nightly.Notification
}

// RecordNotification writes notify.json into the run's folder, where
// `schedule show` reads it.
func (a *Activities) RecordNotification(ctx context.Context, in NotificationInput) error {
	data, err := json.MarshalIndent(in.Notification, "", " ")
	if err != nil {
		return err
	}
	return store.PutBytes(ctx, a.Store, in.Prefix+nightly.NotifyFile, append(data, '\n'))
}

// attempt is the activity's attempt number (1 outside Temporal).
func attempt(ctx context.Context) int {
	if activity.IsActivity(ctx) {
		return int(activity.GetInfo(ctx).Attempt)
	}
	return 1
}
