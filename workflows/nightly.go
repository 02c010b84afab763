package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/sweep"
)

// NightlyInput is what a schedule starts each run with: the stored spec
// (resolved afresh by every run), the baseline and where to notify.
type NightlyInput struct {
	Schedule string
	// SpecKey is the scheduled spec in the store (nightly.SpecKey).
	SpecKey string
	// Baseline is nightly.BaselinePrevious or a pinned bundle id.
	Baseline  string
	Tolerance float64
	// Notify is a webhook URL the verdict is posted to ("": none).
	Notify string
}

// NightlyResult is a run's bundle and verdict.
type NightlyResult struct {
	BundleID string                  `json:"bundle_id"`
	Baseline string                  `json:"baseline_bundle"`
	Counts   map[compare.Outcome]int `json:"verdict_counts"`
	Prefix   string                  `json:"prefix"`
}

// ScheduledStartTime is the search attribute Temporal sets on the runs a
// schedule starts: the time the run was scheduled for.
var ScheduledStartTime = temporal.NewSearchAttributeKeyTime("TemporalScheduledStartTime")

// notifyAttempts bounds the webhook's tries: backoff of one, two and four
// seconds, so a webhook that is down costs a run seven seconds.
const notifyAttempts = 4

// NightlyWorkflow is one scheduled regression run (docs/architecture.md#workflows):
// resolve the stored spec where it points now, run the sweep as a child,
// judge its bundle against the baseline and store the verdict beside the
// run, then post it to the webhook. The schedule names the run by its
// scheduled time, so a retried start is the same run; the notification
// runs last and its failure is recorded, never the run's.
func NightlyWorkflow(ctx workflow.Context, in NightlyInput) (NightlyResult, error) {
	info := workflow.GetInfo(ctx)
	scheduled, ok := workflow.GetTypedSearchAttributes(ctx).GetTime(ScheduledStartTime)
	if !ok {
		scheduled = workflow.Now(ctx)
	}
	self := info.WorkflowExecution.ID
	failed := activities.FailedRunInput{Schedule: in.Schedule, Scheduled: scheduled, WorkflowID: self, SpecKey: in.SpecKey}
	actx := workflow.WithActivityOptions(ctx, quietOptions(info.TaskQueueName, time.Hour))
	var resolved sweep.Input
	if err := workflow.ExecuteActivity(actx, (*activities.Activities).ResolveScheduled, sweep.ResolveScheduledInput{SpecKey: in.SpecKey}).Get(ctx, &resolved); err != nil {
		return NightlyResult{}, recordFailure(ctx, failed, err)
	}
	failed.SpecHash, failed.CodeVersion = resolved.SpecHash, resolved.CodeVersion

	var swept sweep.Result
	if err := workflow.ExecuteChildWorkflow(childOptions(ctx, self, "sweep"), SweepWorkflow, resolved).Get(ctx, &swept); err != nil {
		return NightlyResult{}, recordFailure(ctx, failed, err)
	}

	vctx := workflow.WithActivityOptions(ctx, quietOptions(resolved.Spec.Queues.CPU, time.Hour))
	var v activities.VerdictResult
	err := workflow.ExecuteActivity(vctx, (*activities.Activities).Verdict, activities.VerdictInput{
		Schedule: in.Schedule, Scheduled: scheduled, WorkflowID: self, BundleID: swept.BundleID,
		Baseline: in.Baseline, Tolerance: in.Tolerance, SpecKey: in.SpecKey, SpecHash: resolved.SpecHash, CodeVersion: resolved.CodeVersion,
	}).Get(ctx, &v)
	if err != nil {
		return NightlyResult{}, recordFailure(ctx, failed, err)
	}
	if in.Notify != "" {
		notify(ctx, resolved.Spec.Queues.CPU, in.Notify, v.Prefix)
	}
	return NightlyResult{BundleID: swept.BundleID, Baseline: v.Baseline, Counts: v.Counts, Prefix: v.Prefix}, nil
}

// recordFailure writes the record of a run that failed, with the cause,
// where schedule show and schedule history read it, and returns the
// failure: the run fails in Temporal too, and leaves no bundle and no
// verdict, so the next run's baseline "previous" passes over it.
func recordFailure(ctx workflow.Context, in activities.FailedRunInput, err error) error {
	in.Error = sweep.FailureMessage(err)
	rctx := workflow.WithActivityOptions(ctx, activityOptions(workflow.GetInfo(ctx).TaskQueueName, time.Minute))
	_ = workflow.ExecuteActivity(rctx, (*activities.Activities).RecordFailedRun, in).Get(ctx, nil)
	return err
}

// notify posts the verdict with retries and backoff and records the
// outcome in the run's folder; a webhook that never answers costs the run
// nothing but the record of its failure.
func notify(ctx workflow.Context, queue, url, prefix string) {
	opts := quietOptions(queue, time.Minute)
	opts.RetryPolicy.MaximumAttempts = notifyAttempts
	nctx := workflow.WithActivityOptions(ctx, opts)
	n := nightly.Notification{URL: url, OK: true}
	if err := workflow.ExecuteActivity(nctx, (*activities.Activities).Notify, activities.NotifyInput{URL: url, Prefix: prefix}).Get(ctx, &n.Attempts); err != nil {
		n.OK, n.Attempts, n.Error = false, notifyAttempts, sweep.FailureMessage(err)
	}
	rctx := workflow.WithActivityOptions(ctx, activityOptions(queue, time.Minute))
	_ = workflow.ExecuteActivity(rctx, (*activities.Activities).RecordNotification, activities.NotificationInput{Prefix: prefix, Notification: n}).Get(ctx, nil)
}

// quietOptions are activityOptions for an activity that does not
// heartbeat (resolving and uploading a spec's inputs, judging a bundle,
// posting a webhook): only its timeout bounds it.
func quietOptions(queue string, timeout time.Duration) workflow.ActivityOptions {
	opts := activityOptions(queue, timeout)
	opts.HeartbeatTimeout = 0
	return opts
}
