package activities

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
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
	Baseline string                  `json:"baseline_bundle"`
	Counts   map[compare.Outcome]int `json:"verdict_counts"`
	// Prefix is the run's folder in the store.
	Prefix string `json:"prefix"`
}

// Verdict compares a scheduled run's bundle with its baseline (the
// schedule's previous successful run, or a pinned bundle) with the paired
// conversation bootstrap of compare.Paired and stores verdict.json,
// verdict.md and run.json in the run's folder, run.json last. A first run
// without a previous one finds every system new.
func (a *Activities) Verdict(ctx context.Context, in VerdictInput) (VerdictResult, error) {
	cur, err := bundle.ReadResults(ctx, a.Store, in.BundleID)
	if err != nil {
		return VerdictResult{}, undecodable(err)
	}
	baseline, err := nightly.BaselineOf(ctx, a.Store, in.Schedule, in.Scheduled, in.Baseline)
	if err != nil {
		return VerdictResult{}, err
	}
	old := &bundle.Results{}
	if baseline != "" {
		if old, err = bundle.ReadResults(ctx, a.Store, baseline); errors.Is(err, store.ErrNotFound) {
			return VerdictResult{}, badInput("baseline %v", err)
		} else if err != nil {
			return VerdictResult{}, undecodable(err)
		}
	}
	v := compare.Paired(old, cur, compare.PairedOptions{Tolerance: in.Tolerance})
	manifest, err := bundle.ReadManifest(ctx, a.Store, in.BundleID)
	if err != nil {
		return VerdictResult{}, undecodable(err)
	}
	run := nightly.Run{Schedule: in.Schedule, Scheduled: in.Scheduled.UTC().Format(time.RFC3339), WorkflowID: in.WorkflowID,
		BundleID: in.BundleID, SpecKey: in.SpecKey, SpecHash: in.SpecHash, CodeVersion: in.CodeVersion,
		Inputs: manifest.Inputs, Baseline: baseline, Counts: v.Counts}
	prefix, err := nightly.RecordVerdict(ctx, a.Store, in.Scheduled, run, v)
	if err != nil {
		return VerdictResult{}, err
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
	return nightly.RecordFailure(ctx, a.Store, in.Scheduled, run)
}

// undecodable makes a stored bundle file that does not decode a failure
// no retry can mend (corrupt); other errors are returned as they are.
func undecodable(err error) error {
	if errors.Is(err, bundle.ErrUndecodable) {
		return temporal.NewNonRetryableApplicationError(err.Error(), sweep.Corrupt, err)
	}
	return err
}

// NotifyInput posts a run's verdict.json to a webhook.
type NotifyInput struct {
	URL    string
	Prefix string // the run's folder
}

// Notify POSTs the run's verdict.json to the webhook under the operator's
// policy (webhook.Policy.Post: no redirects, no link-local or metadata
// address unless allowed) and returns the attempt that succeeded; a
// failure, which Temporal retries with backoff, names the URL masked.
func (a *Activities) Notify(ctx context.Context, in NotifyInput) (int, error) {
	body, err := store.GetBytes(ctx, a.Store, in.Prefix+nightly.VerdictFile)
	if err != nil {
		return 0, err
	}
	if err := a.Webhooks.Check(in.URL); err != nil {
		return 0, badInput("%v", err)
	}
	if err := a.Webhooks.Post(ctx, in.URL, body); err != nil {
		return 0, err
	}
	return attempt(ctx), nil
}

// NotificationInput is the outcome of a run's notification.
type NotificationInput struct {
	Prefix       string
	Notification nightly.Notification
}

// RecordNotification writes notify.json into the run's folder, where
// `schedule show` reads it, with the URL masked (nightly.RecordNotification).
func (a *Activities) RecordNotification(ctx context.Context, in NotificationInput) error {
	return nightly.RecordNotification(ctx, a.Store, in.Prefix, in.Notification)
}

// attempt is the activity's attempt number (1 outside Temporal).
func attempt(ctx context.Context) int {
	if activity.IsActivity(ctx) {
		return int(activity.GetInfo(ctx).Attempt)
	}
	return 1
}
