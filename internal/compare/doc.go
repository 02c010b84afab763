// Package compare compares two bundles' results system by system, corpus
// by corpus and task by task (docs/architecture.md#bundles): Diff gives the
// test recall and fp_rate of each row with a verdict by tolerance, Paired
// the paired conversation bootstrap of docs/protocol.md#paired-comparisons
// with its verdict.json and verdict.md, and Mismatches what makes two
// bundles' numbers incomparable. Both walk the same rows: every system,
// corpus and task of either bundle, in one order.
package compare
