// Package nightly owns the rules of scheduled regression runs
// (docs/operations.md#nightly-schedules): what a schedule is, what it
// must pass before it is created or changed, and what its runs leave in
// the store (docs/architecture.md#store-layout).
//
// # What it owns
//
//   - A schedule's settings (Settings) and its name (CheckName).
//   - The checks a new or changed schedule passes before anything is
//     stored or created (CheckNew, CheckUpdate): when runs are due, the
//     catch-up window, the tolerance and the webhook; the spec as it is
//     stored, its paths made absolute, once under its content hash
//     (SpecKey); a pinned baseline that exists and shares a corpus with
//     the spec the schedule will run.
//   - The baseline of a run: the previous successful run
//     (BaselinePrevious, Previous) or a pinned bundle (BaselineOf).
//   - A run's records: run.json, verdict.json, verdict.md and notify.json
//     (Run, Notification), written by RecordVerdict, RecordFailure and
//     RecordNotification, read back by Runs, and the trend of a metric
//     over the runs (History, Histories).
//
// # What it leaves to the layers above
//
// Checks that need those layers are passed in (Checks): the webhooks the
// configuration allows, resolving a spec's systems and corpora, and
// bundle ids as a user types them. Temporal's side of a schedule (create,
// update, pause, trigger, backfill, list) is in internal/orchestrate,
// which keeps Settings in the schedule; NightlyWorkflow (workflows) runs
// a scheduled sweep and its activities (activities/nightly.go) judge it
// against its baseline and write the records above through this package; the `floorbench
// schedule` commands hold flags and printing, and the viewer shows runs
// and trends.
package nightly
