// Package sweep is the contract between the side that submits a sweep and
// the side that runs it (docs/architecture.md#packages): the resolved
// sweep the workflows take (Input, with its corpora and systems), what a
// sweep returns (Result), how a spec is resolved into an Input (Resolve),
// the input of the activity that resolves a scheduled spec on a worker,
// the names of the error types an activity fails with that no retry heals
// (BadInput, Corrupt), and the one rule by which a failed run is told to
// a user (FailureMessage).
//
// It sits below both activities and workflows, so that an activity can
// return an Input (activities.ResolveScheduled) and a workflow can start
// the sweep with it. It imports domain and composition packages (spec,
// detect, corpus, keys, limits, version) and the Temporal SDK's error
// types, never activities, workflows or a client.
//
// What both sides share but cannot live here, and why:
//   - Upload (activities.Upload) stores a sweep's local corpora with the
//     IngestLocal activity's code, so it lives in activities.
//   - The plan (workflows.NewPlan) is built of the activities' input types
//     (every evaluation's inputs, its key, the audits), so it lives above
//     activities, in workflows, beside the workflows that execute it.
//   - The preview (package preview) and the in-process executor (package
//     inprocess) read that plan and call the activities, so they live
//     above workflows.
package sweep
