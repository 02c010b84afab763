// Package detect turns a conversation's audio into end-of-turn (EOT) and
// interruption (INT) score tracks, one per speaker (DESIGN §6). The tracks are
// what the commit rule (DESIGN §3.2) thresholds, so every detector here is
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
//   - onnx: any ONNX model described by the spec's onnx section (OnnxSpec):
//     sample rate, frame and hop, input and state tensors, which outputs are
//     voice activity or direct EOT/INT scores, and the channel layout
//     (per-speaker, or speaker-vs-rest for dyadic models);
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
// produce, per speaker, a voice-activity value a in [0, 1] at their own hop.
// On the output grid (frame_rate_hz) each frame takes the latest activity
// value whose samples have all been heard by the frame's end; before the
// first such value the activity is 0. FloorMapping then derives the scores
// frame by frame, for all speakers together:
//
//   - Speech state, with hysteresis: a speaker starts speaking when a rises
//     to speech_threshold or above and stops when a falls below
//     silence_threshold.
//   - EOT: 0 while the speaker speaks. After a run of own speech that lasted
//     at least eot_min_speech_s, the score is min(1, s / eot_ramp_s), where s
//     is the silence since that run ended, measured to the end of the frame.
//     It stays 0 after shorter runs (clicks, noise bursts) and before the
//     speaker has spoken. A threshold θ on this score therefore means "fire
//     after θ·eot_ramp_s of silence", the classic acoustic end-of-turn rule
//     the MPTB paper's acoustic baselines use.
//   - INT: while the speaker speaks in a run that began when another speaker
//     was speaking (at the onset or within int_gate_lookback_s before it),
//     the score is min(1, r / int_ramp_s), where r is the run's length so
//     far; otherwise 0. A threshold θ means "fire once an overlapping claim
//     has lasted θ·int_ramp_s", which separates long floor claims from short
//     backchannels only by duration. With int_gate false the other speaker's
//     activity is not required and every own onset is a candidate.
//
// onnx models may instead output EOT or INT scores directly (roles eot and
// int); those are placed on the grid the same way and used as they are.
//
// # Running
//
// Runtime says where ONNX Runtime's library and the setup's models are
// (scripts/setup.sh onnx installs both, sha256-pinned, DESIGN §11) and on
// which device sessions run; a missing library or model is one error that
// names the setup step. Device cuda appends ONNX Runtime's CUDA execution
// provider and, where the provider library or a GPU is missing, logs a
// warning and runs on the CPU. ProbsFiles runs a Detector over a Source of
// conversations and WriteProbsFiles writes probs-eot.json and
// probs-int.json (DESIGN §4) only once both are complete.
package detect
