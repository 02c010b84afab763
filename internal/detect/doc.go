// Package detect turns a conversation's audio into end-of-turn (EOT) and
// interruption (INT) score tracks, one per speaker (docs/architecture.md#detectors). The tracks are
// what the commit rule (docs/protocol.md#commit-rule) thresholds, so every detector here is
// causal: the score of frame i (covering [i/fps, (i+1)/fps), committed at
// (i+1)/fps) depends only on samples heard before (i+1)/fps.
//
// # Systems
//
// A system is a family plus its parameters (System, loaded from a YAML spec or
// named as a built-in). The families:
//
//   - rms: frame energy against an adaptive noise floor, with a hangover;
//   - webrtcvad: the WebRTC voice activity detector, modes 0–3;
//   - silero: Silero VAD v5 on ONNX Runtime, 512-sample steps with the
//     previous 64 samples prepended and the recurrent state carried, all
//     channels of a conversation batched into one session call per step;
//   - rms-endpointer, webrtcvad-endpointer, silero-endpointer: the same
//     voice activity under the endpointer rule instead of the gate (below);
//   - onnx: any ONNX model described by the spec's onnx section (OnnxSpec):
//     sample rate, frame and hop, input and state tensors, which outputs are
//     voice activity or direct EOT/INT scores, and the channel layout
//     (per-speaker, or speaker-vs-rest for dyadic models); floor_rule picks
//     the gate (default) or the endpointer for voice activity outputs;
//   - external: probability files made elsewhere, passed through unchanged.
//
// A spec is YAML with the keys family, name (a label), params, model (path
// and sha256; ${FLOORBENCH_TOOLS} in the path is the tools folder, relative
// paths start at the spec's folder) and, for family onnx, onnx.
// testdata/silero-onnx.yaml describes Silero VAD v5 for the onnx family.
// Unknown keys and parameters are errors.
//
// A system's hash (System.Hash) identifies it in store keys and bundles: the
// SHA-256 of its normalised spec (family, every parameter with defaults
// filled in, the model's and input files' SHA-256 instead of their paths).
//
// # From voice activity to floor scores
//
// The acoustic families (and onnx models whose outputs are voice activity)
// produce, per speaker, a voice-activity value a in [0, 1] at their own hop:
// the speech posterior. On the output grid (frame_rate_hz) each frame takes
// the latest activity value whose samples have all been heard by the frame's
// end; before the first such value the activity is 0. A FloorMapping then
// derives the scores frame by frame, for all speakers together. Both rules
// track speech with hysteresis: a speaker starts speaking when a rises to
// speech_threshold or above and stops when a falls below silence_threshold.
//
// The gate (Gate; families rms, webrtcvad, silero) is the acoustic baseline
// as the MPTB and TurnBench papers ran it, an instantaneous test of the
// detector's speech decision (the hysteresis state):
//
//   - EOT: 1 while the speaker, having spoken, is silent; 0 while they speak
//     and before their first speech (a channel that never spoke never
//     fires).
//   - INT: 1 while the speaker speaks and another speaker speaks or spoke
//     within int_gate_lookback_s; otherwise 0. With int_gate false, 1
//     whenever the speaker speaks.
//
// Scores are the decision, not the posterior a: Silero's recurrent state
// makes its posterior decay for a second or more after speech, and a
// threshold near 1 on 1 − a would turn the gate into a hidden silence
// timeout (on the mptb preset it reached EOT test recall 0.68 in budget that
// way), which is what the endpointer families are for.
//
// The gate cannot tell a hold from a turn end, nor a backchannel from a
// floor claim: a pause scores like the silence after the last word, a
// "yeah" like the start of a takeover. It fires early and often, which is
// why the papers report these baselines with high recall far outside the
// false-positive budget.
//
// The endpointer (Endpointer; families rms-endpointer,
// webrtcvad-endpointer, silero-endpointer) is a silence-timeout rule over
// the same speech states:
//
//   - EOT: 0 while the speaker speaks. After a run of own speech that lasted
//     at least eot_min_speech_s, the score is min(1, s / eot_ramp_s), where s
//     is the silence since that run ended, measured to the end of the frame.
//     It stays 0 after shorter runs (clicks, noise bursts) and before the
//     speaker has spoken. A threshold θ therefore means "fire after
//     θ·eot_ramp_s of silence", the classic endpointing timeout.
//   - INT: while the speaker speaks in a run that began when another speaker
//     was speaking (at the onset or within int_gate_lookback_s before it),
//     the score is min(1, r / int_ramp_s), where r is the run's length so
//     far; otherwise 0. A threshold θ means "fire once an overlapping run
//     has lasted θ·int_ramp_s" (5 s by default, past the 3 s scoring
//     window, so that a sweep can pick any run length), which separates
//     long floor claims from short backchannels only by duration. With int_gate false the other speaker's
//     activity is not required and every own onset is a candidate.
//
// onnx models may instead output EOT or INT scores directly (roles eot and
// int); those are placed on the grid the same way and used as they are.
//
// # Running
//
// Runtime says where ONNX Runtime's library and the setup's models are
// (scripts/setup.sh onnx installs both, sha256-pinned, docs/operations.md#tools) and on
// which device sessions run; a missing library or model is one error that
// names the setup step. Device cuda appends ONNX Runtime's CUDA execution
// provider and, where the provider library or a GPU is missing, logs a
// warning and runs on the CPU. ProbsFiles runs a Detector over a Source of
// conversations and WriteProbsFiles writes probs-eot.json and
// probs-int.json (docs/formats.md#probability-files) only once both are complete.
package detect
