// Package floor holds the event taxonomy of spoken floor control and the gold
// sets derived from it (docs/architecture.md#domain-model, docs/protocol.md#gold-derivation): positive anchors, negative spans and
// excluded intervals per task, per conversation and per speaker, for the EOT
// (end of turn) and INT (interruption) tasks.
//
// Speakers are numbered from 1, as in TurnBench's gold export and the
// speaker_1 … speaker_N keys of submissions. Times are seconds (float64).
package floor
