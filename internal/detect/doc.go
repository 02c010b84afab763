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
//     sample rate (channels resampled to it), frame and hop, audio inputs
//     (one, or one per channel), state tensors (fed back, or rolling
//     queues), which outputs are voice activity or direct EOT/INT scores
//     and how they are read (every frame of a time axis, softmax, sums of
//     columns, sigmoid, complement; float32 or float16), and the channel
//     layout (per-speaker, or speaker-vs-rest for dyadic models); a model
//     that fixes its batch at 1 runs its rows one at a time
//     (docs/formats.md#onnx-models); a front end (FrontEndSpec) computes
//     the audio input on the host from each window where the model reads
//     features: Whisper's log-mel spectrogram (Smart Turn v3) or
//     normalised samples with an attention mask (Smart Turn v2),
//     docs/formats.md#onnx-front-ends; floor_rule picks the gate
//     (default) or the endpointer for voice activity outputs;
//   - external: probability files made elsewhere, passed through unchanged;
//   - realtime-vad: an OpenAI-Realtime-compatible endpoint's own turn
//     detection, each channel streamed to it, its speech_stopped and
//     speech_started events as one-frame EOT and INT pulses, its answers
//     kept through Runtime.Answers (docs/systems.md#provider-vad).
//
// A spec is YAML with the keys family, name (a label), params, model (path
// and sha256; ${FLOORBENCH_TOOLS} in the path is the tools folder,
// ${FLOORBENCH_MODELS} the folder of models a user brings, relative paths
// start at the spec's folder) and, for family onnx, onnx.
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
// # Tasks
//
// A system scores both tasks or one (System.Tasks, docs/protocol.md#one-task-systems):
// a voice activity output gives both through the floor mapping; without
// one, an onnx model scores the tasks of its direct outputs, so a model of
// an eot output alone (Smart Turn, Turn-1-Mini) is EOT-only; an external
// system scores the tasks its spec's tasks field claims, else both, each
// file required. The tracks of a
// task a system does not score are nil in its Scores: never zeros, never a
// copy of the other task's, so that nothing downstream ranks them.
//
// # Stages
//
// Every family that scores audio runs in two stages. The model stage turns
// each speaker's channel into values at the model's own hop (voice
// activity, or an onnx model's direct EOT and INT scores); the floor stage
// places them on the output grid and maps them to scores. Each family
// declares, once, the stage of every parameter (Param.Stage): rms's
// window, thresholds and hangover and webrtcvad's mode and frame belong to
// the model stage; the frame rate, hysteresis, INT gate, ramps and
// floor_rule to the floor stage. A ModelStage names the model (rms,
// webrtcvad, silero-vad-v5, onnx) and has a version of its own; the
// model is opened from its stage's parameters alone, so a floor parameter
// cannot change its output.
//
// System.ModelHash identifies a system's model stage: the stage's name and
// version, the model-stage parameters, the model file's SHA-256 and an
// onnx section. Systems with the same model hash (silero and
// silero-endpointer; rms-endpointer with another eot_ramp_s) give the same
// ModelOutput on the same audio, so a sweep runs each model once per
// conversation and stores its output (docs/formats.md#model-outputs);
// System.MapOutput is any such system's floor stage over it, and
// MapOutput of Model.Run is Detect, bit for bit.
//
// # Streaming
//
// Every family that scores audio runs one incremental path, whole-file or
// streamed; there is no second implementation. Its three stages:
//
//   - the model consumes samples as they arrive and emits its values per
//     hop, keeping what carries between steps: the samples of a window not
//     yet complete (window j holds the frame samples that end at sample
//     (j+1)·hop, zeros before the start, so Silero's 64 context samples
//     are the previous step's last 64), Silero's and an onnx model's
//     recurrent state, each WebRTC VAD's own state, the rms noise floor.
//     Silero and onnx models run all channels of a conversation as one
//     batch, one session call per step;
//   - the grid places the values on the output grid as samples are heard,
//     by the rule above: frame i is complete once the samples before
//     (i+1)/fps have all been heard;
//   - the floor mapping steps one frame at a time (FloorMapping.Start,
//     FloorState.Step); Apply is that loop over whole tracks.
//
// Detect pushes a conversation through them about a second at a time.
// System.OpenStream opens a Stream, the same path for a conversation of n
// speaker channels at 16 kHz: Push takes the next samples of every channel
// (equal lengths, any count; 320 is 20 ms) and returns every frame those
// samples complete, in the push that completes it, with the scores Detect
// gives that frame of the same audio, bit for bit. A frame therefore
// arrives at its commit time (i+1)/fps, and shows voice activity up to one
// model hop old (Silero's hop is 32 ms); except for an onnx model whose
// step gives several values (VAP's 5 s of 50 Hz frames) or that reads
// another sample rate (its resampler waits for three samples): such a
// frame arrives once the model's step that gives its value completes, and
// a conversation's frames after the model's last step, which Detect fills
// with the last value, do not arrive. After the floor(D·16000) samples
// of a conversation of duration D a stream has given Detect's floor(D·fps)
// frames, except where D falls within a sample of a frame's end: then the
// two differ by that last frame.
//
// A push with the wrong number of channels or unequal lengths is refused
// and changes nothing; a push that fails in the model leaves the stream
// broken, and every later push returns that error. Opening a stream of a
// model family opens its own ONNX Runtime session (a fraction of a second,
// so open it before the conversation starts); streams are independent, and
// each is used by one goroutine at a time. The external family reads
// scores made elsewhere and cannot stream.
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
// probs-int.json (docs/formats.md#probability-files), or the one of a
// one-task system, only once all are complete.
//
// One package on purpose. Every family (rms,
// webrtcvad, silero, onnx, external) implements the same contract (Family,
// ModelStage, FloorMap over one frame grid), the streaming and batched
// paths share its row and frame code, and the ONNX Runtime session lives
// beside the families that use it; split by family, each piece would import
// the others' internals.
package detect
