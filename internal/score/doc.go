// Package score implements the floorbench protocol (docs/protocol.md): one-to-one
// matching of predictions to gold anchors with latency, negative-span false
// positives, the commit rule that turns score tracks into predictions,
// candidate thresholds, dev operating points frozen for test, budgets and
// the leaderboard, conversation-bootstrap confidence intervals, paired
// comparisons and breakdowns.
//
// It agrees with TurnBench's public scorer to the count for the same gold and
// predictions, including its numeric details: numpy's default (linear)
// percentile, Python's round-half-to-even in the refractory, inclusive window
// ends, windows clamped at the next same-speaker anchor and the FP exemption
// inside positive windows. Nothing here reads files other than the formats
// of docs/formats.md, and nothing imports Temporal, Kubernetes or the store.
//
// One package on purpose: it is the protocol,
// TurnBench's matching, sweep, operating point and bootstrap with
// floorbench's windows and breakdowns, and every part is checked against
// the reference to the count; split, the protocol constants and the
// matching rules they govern would live apart.
package score
