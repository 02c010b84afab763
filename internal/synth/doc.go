// Package synth generates MPTB-style multi-party conversations in the five
// stages of DESIGN §5, each a separate step with its own types:
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
// Every random draw comes from a stream seeded by (corpus seed,
// conversation id, stage), so conversations can be generated in any order
// and in parallel with byte-identical results (Generate).
package synth
