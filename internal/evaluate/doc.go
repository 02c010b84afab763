// Package evaluate scores one system, or one seated agent, on one corpus
// by the protocol and explains the result (docs/protocol.md#sweep-and-operating-point):
// per task, the dev sweep and operating point (or a threshold transferred
// from another corpus), test at the frozen threshold, bootstrap
// intervals, breakdowns by conversation attribute, the error anatomy of
// docs/protocol.md#breakdowns-and-error-anatomy, per-event outcomes,
// per-conversation counts and a few timelines.
//
// An Evaluation is what the Evaluate activity stores and what a bundle
// (package bundle) is assembled from; comparisons (package compare) read
// its per-conversation counts. It is pure: gold sets, conversation
// attributes and score tracks or predictions in memory in, an Evaluation
// out.
package evaluate
