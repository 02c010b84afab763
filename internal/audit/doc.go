// Package audit tells when a trivial rule solves a corpus. It computes
// one-number features from every labelled conversation's channels, turns
// each into a score track per speaker, and runs it through the protocol
// exactly as a detector's tracks are run (internal/score): candidate
// thresholds from the dev scores, the commit rule, the dev operating point,
// the threshold frozen on test, conversation-bootstrap intervals. A feature
// that reaches a high in-budget recall is a shortcut: the corpus rewards a
// detector for it rather than for understanding the floor.
//
// # Features
//
// Every feature is causal: frame i reads audio only up to the frame's end,
// (i+1)/fps. Speech and silence are the voice activity of the rms baseline
// with its default parameters (detect.EnergyActivity), so silences are
// counted after its 200 ms hangover.
//
// EOT:
//   - own_silence: seconds since the speaker's last speech, once they have
//     spoken ("fire after 1.42 s of own silence").
//   - quietness: 1 - frame energy (the energy of the last 20 ms in dBFS,
//     mapped linearly from -100 dBFS to 0 dBFS onto [0, 1]).
//   - run_elapsed: seconds since the onset of the speaker's latest speech
//     run, counting on through the silence after it.
//
// INT:
//   - energy: frame energy.
//   - run_length: seconds since the current speech run began, 0 in silence.
//   - overlap_run_length: run_length for runs that begin while another
//     speaker speaks or within 0.5 s after one stopped.
//   - overlap_run_end (fire-after-overlap): seconds since such a run
//     ended, until the speaker speaks again. Under the span negative
//     window a false alarm on a negative span counts only inside the
//     span, so firing just after a vocalisation ends costs nothing on
//     backchannels and asides while it still lands in a short claim's
//     window: this measures how far the corpus lets the scoring windows,
//     rather than the floor, be learnt. The anchored window charges it.
//   - holder_silence: inside such a run, how long every other speaker has
//     been silent since the run's onset (audio does not say who holds the
//     floor: the other channels stand for the holder). It is the one
//     cross-channel feature: what the holder does is the evidence of a
//     floor change a real detector should use, so it is reported and never
//     flagged.
//   - words (oracle transcript): the words of the speaker's current
//     vocalisation completed so far, each event's word count spread evenly
//     over its extent. It reads the labels, not the audio, and is listed
//     only for corpora whose labels carry word counts (generated MPTB).
//
// Durations and word counts x become scores x/(1+x); every map is monotone,
// so a threshold on the score is a threshold on the feature, and the
// report states it in the feature's own unit.
//
// # Verdicts
//
// Every feature runs under both negative windows (span and anchored,
// docs/protocol.md#negative-window), each picking its own operating point
// from one dev sweep. Per task, feature and window the audit reports the
// threshold and its rule in words, dev and test recall and fp_rate, test
// intervals, test recall within each latency budget, the median latency,
// and the AUC: the area under test recall against fp_rate over the
// candidate thresholds (points sorted by fp_rate, then recall, with (0, 0)
// and (1, 1) added, trapezoids). A feature in budget with test recall at
// or above the INT flag (0.50 by default) under either window is flagged
// as a SHORTCUT, unless it is cross-channel; one flagged under span only
// lives in the blind spot and gets a line of its own. Cross-channel
// features get a line per window with their recall, recall within each
// budget and median latency. EOT has a flag too, off by default: a
// silence timeout may honestly stay in budget on EOT at the price of
// latency. The best feature of each task is the one a leaderboard of the
// features ranks first under the configured window.
//
// Conversations without labels are skipped and counted. A corpus with no
// labelled dev conversation (AMI ingested as test only) picks thresholds on
// the scored split itself: its rates are then optimistic, and the report
// says so.
package audit
