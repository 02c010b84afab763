// Package synth generates MPTB-style multi-party conversations in the five
// stages of docs/architecture.md#generator, each a separate step with its own types:
//
//  1. Script (WriteScript): who says what, from per-type topic banks and
//     sentence templates; or (ChatScripts) the same plan (PlanScript)
//     written by a language model, every answer checked against it
//     (ParseScriptAnswer).
//  2. Floor plan (PlanFloor): the symbolic event log, decided before any
//     audio: turn order, handover gaps and overlaps, holds, backchannels,
//     successful, failed and non-floor-taking interruptions, non-content.
//  3. Render (Render): every utterance synthesised by a real TTS engine
//     (or a speech endpoint, a TTS of package backend) with one voice per
//     speaker; boundaries measured on the samples.
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
//     (listenerText): successful claims (27% of 1–3 words), failed claims
//     from "but" to several seconds of talking over the holder, and
//     non-floor-taking asides of 2 to 16 words, moved earlier when needed
//     so that the holder talks through them. A claim is its own
//     vocalisation; the claimer's turn follows it after a pause drawn like
//     any within-speaker pause, or runs straight on (OverlapShares).
//   - Holders react to overlap as people do. After a claim the holder
//     talks on for a time drawn from Switchboard's overlaps at floor
//     transfers (swbd.Overlaps), whatever the claim's length, the claim
//     placed early enough in the turn for the holder to have the words
//     (claimTiming, claimStart). A share of backchannels and non-content
//     vocalisations go into a pause of the holder's rendered speech
//     (speechPauses) rather than over it, and at a share of the
//     non-floor-taking speech over it the holder cuts off, stays silent a
//     few hundred milliseconds and restarts the same turn (a Restart in the
//     plan, logged as the turn's restarts): the holder going quiet is
//     evidence of a floor change, not proof. The shares are the preset's
//     (OverlapShares; their sources are in docs/corpora.md) and are drawn
//     from a stream of their own, so changing them leaves the rest of the
//     plan as it was.
//
// `go test -run TestPresetTimingMatchesSwitchboard ./internal/synth/` lays
// out the whole mptb preset and checks its timing against Switchboard.
//
// Every random draw comes from a stream seeded by (corpus seed,
// conversation id, stage), so conversations can be generated in any order
// and in parallel with byte-identical results (Generate). The floor plan
// draws from two: StageFloor and, for the reactions OverlapShares govern,
// StageOverlap.
//
// One package on purpose. It is the generator's
// one job, a conversation from a plan to audio: the script and lexicon, the
// floor plan and reactions, the voices and their three engines (espeak-ng,
// flite, festival) and the assembly, all under one GeneratorVersion; a
// change anywhere in it changes a corpus's bytes, so it is versioned and
// reviewed as one.
package synth
