// Package bundle is the immutable, versioned result bundle of a sweep
// (docs/architecture.md#bundles): it assembles the evaluations (package
// evaluate), corpus audits and agents' results into manifest.json,
// results.json, a per-event CSV, TurnBench-format predictions, figures
// and a report.md with the leaderboards, operating points, breakdowns
// with 95% intervals, paired comparisons of systems and the error anatomy
// of docs/protocol.md#breakdowns-and-error-anatomy; and it reads stored
// bundles back (ReadManifest, ReadResults, List, Stored).
//
// Assembly is pure: inputs in memory, outputs are files as bytes. The
// activities load and store them.
package bundle
