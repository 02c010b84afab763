// Package bundle evaluates systems on corpora and aggregates the results
// into immutable, versioned result bundles (docs/architecture.md#bundles): manifest.json,
// results.json, a per-event CSV, TurnBench-format predictions and a
// report.md with the leaderboard, operating points, breakdowns with 95%
// intervals, paired comparisons and the error anatomy of docs/protocol.md#breakdowns-and-error-anatomy.
//
// It is pure: inputs are gold sets, conversation attributes and score
// tracks in memory, outputs are files as bytes. The activities load and
// store them.
package bundle
