// Package synth generates MPTB-style multi-party conversations in the five
// stages of docs/architecture.md#generator, each a separate step with its own types:
//
//  1. Script (WriteScript): who says what, from per-type topic banks and
//     sentence templates.
//  2. Floor plan (PlanFloor): the symbolic event log, decided before any
//     audio: turn order, handover gaps and overlaps, holds, backchannels,
//     successful, failed and non-floor-taking interruptions, non-content.
//  3. Render (Render): every utterance synthesised by a real TTS engine
//     with one voice per speaker; boundaries measured on the samples.
//  4. Acoustics (ApplyAcoustics): per-channel noise at a drawn SNR.
//  5. Assemble (Assemble): the plan laid out on one sample timeline per
//     speaker; every event time is a sample index divided by the rate, so
//     the log is exact to the sample.
//
// # A benchmark a timer cannot pass
//
// The floor plan is built so that no one-number feature (a pause length,
// a vocalisation's length or word count) gives a label away; `floorbench
// corpus audit` measures that on every corpus.
//
//   - Timing is real conversation's: hold pauses are drawn from
//     Switchboard's within-speaker pauses and handover offsets from its
//     floor-transfer offsets (package swbd; overlapping handovers and long
//     gaps alike), a little longer or quicker per interaction type
//     (Style.PauseScale, Style.OffsetShift). A holding turn may pause at
//     several sentence boundaries; 30% of holds follow a question (half tag
//     questions, half from the bank turn-final questions come from). About
//     15% of holds are contested: a listener vocalises into them, or a failed
//     claim starts in them. The speaker who just yielded speaks again early
//     in the next turn after 12% of handovers, so silence after a turn end
//     is likely, not certain.
//   - Listener speech comes in every length from one shared vocabulary
//     (listenerText): successful claims (27% of 1–3 words, after which the
//     holder stops at once; over longer ones the holder talks on for up to
//     1.5 s), failed claims from "but" to several seconds of talking over
//     the holder, and non-floor-taking asides of 2 to 16 words, moved
//     earlier when needed so that the holder talks through them. A claim is
//     its own vocalisation: the claimer's turn follows after a pause drawn
//     like any within-speaker pause.
//
// `go test -run TestPresetTimingMatchesSwitchboard ./internal/synth/` lays
// out the whole mptb preset and checks its timing against Switchboard.
//
// Every random draw comes from a stream seeded by (corpus seed,
// conversation id, stage), so conversations can be generated in any order
// and in parallel with byte-identical results (Generate).
package synth
