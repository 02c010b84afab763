package detect

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
)

// Published turn-taking models, each run through the onnx family as a
// stand-in graph with the model's input and output names, types and
// shapes (docs/formats.md#onnx-models). Each stand-in computes simple
// statistics of its windows (mean magnitudes, their softmax) that the
// test computes again from the conversation's channels, so every value of
// every track is checked: which samples a step reads, which frames of a
// time axis become which values, how state carries.

// contractOutput runs the system a spec describes, with MODEL replaced by
// model, over c: its model stage's output.
func contractOutput(t *testing.T, spec, model string, c *Conversation) *ModelOutput {
	t.Helper()
	s := contractSystem(spec, func(*testing.T) string { return model })(t)
	out, err := openModel(t, s, onnxRuntime(t)).Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// contractSystem is the system of a spec whose MODEL is the stand-in
// model writes.
func contractSystem(spec string, model func(t *testing.T) string) func(t *testing.T) *System {
	return func(t *testing.T) *System {
		s, err := ParseSystem([]byte(strings.ReplaceAll(spec, "MODEL", model(t))), "")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// meanAbs is the mean magnitude of x over [from, to), zeros outside x.
func meanAbs(x []float32, from, to int) float64 {
	var sum float64
	for n := max(from, 0); n < min(to, len(x)); n++ {
		sum += math.Abs(float64(x[n]))
	}
	return sum / float64(to-from)
}

// restOf is what speaker-vs-rest feeds row k besides its own channel:
// every other channel summed, clipped to [-1, 1].
func restOf(c *Conversation, k int) []float32 {
	out := make([]float32, len(c.Channels[k]))
	for i := range out {
		var sum float32
		for m, ch := range c.Channels {
			if m != k {
				sum += ch[i]
			}
		}
		out[i] = max(-1, min(1, sum))
	}
	return out
}

// checkTrack compares a track with want for its first given values, and
// requires the rest (the frames after the model's last step) to repeat
// the last given value.
func checkTrack(t *testing.T, what string, track []float32, given int, tol float64, want func(j int) float64) {
	t.Helper()
	if given < 1 || given > len(track) {
		t.Fatalf("%s: %d values, want at least %d", what, len(track), given)
	}
	for j, v := range track {
		w := float64(track[given-1])
		if j < given {
			w = want(j)
		}
		if math.Abs(float64(v)-w) > tol {
			t.Fatalf("%s value %d: %v, want %v", what, j, v, w)
		}
	}
}

// vapModel is VAP exported with its heads: waveform [batch, 2, N] (own,
// rest) to p_now and p_future [batch, T, 2], T = N/320 frames at 50 Hz.
// Its p_now is each channel's mean magnitude per frame, p_future the
// softmax of 10 times p_now over the two speakers.
func vapModel(t *testing.T) string {
	const n, frames = 320000, 1000
	var g graph
	g.input("waveform", onnxFloat, -1, 2, n)
	g.output("p_now", onnxFloat, -1, frames, 2)
	g.output("p_future", onnxFloat, -1, frames, 2)
	g.frameMeans("waveform", "means", []int64{0, 2, frames, 320}, 0)
	g.op("Transpose", []string{"means"}, "p_now", attrIs("perm", 0, 2, 1))
	g.floats("ten", nil, 10)
	g.op("Mul", []string{"p_now", "ten"}, "logits")
	g.op("Softmax", []string{"logits"}, "p_future", attrI("axis", 2))
	return g.write(t, "vap")
}

const vapSpec = `family: onnx
model: {path: MODEL}
params: {frame_rate_hz: 50}
onnx:
  sample_rate: 16000
  frame: 320000
  hop: 80000
  channel_layout: speaker-vs-rest
  audio: {name: waveform, shape: [batch, channels, frame]}
  scores:
    - {output: p_future, frames: 250, index: -1, role: eot}
    - {output: p_now, frames: 250, index: 0, role: int}
`

// VAP runs 20 s of context in 5 s steps and reads every frame of the last
// 5 s: value j is frame j at 50 Hz, covering samples [320j, 320(j+1)).
// The dialogue's 14 s give two whole steps; the last 4 s repeat the last
// value.
func TestOnnxVAPReadsEveryFrameOfAStep(t *testing.T) {
	c, _ := dialogue(t)
	out := contractOutput(t, vapSpec, vapModel(t), c)
	if out.Hop != 320 {
		t.Fatalf("hop %d, want 320 (50 Hz)", out.Hop)
	}
	given := 2 * 250
	for k := range c.Channels {
		own, rest := c.Channels[k], restOf(c, k)
		pnow := func(j int) (float64, float64) {
			return meanAbs(own, 320*j, 320*(j+1)), meanAbs(rest, 320*j, 320*(j+1))
		}
		checkTrack(t, "eot (p_future, rest)", out.Values[0][k], given, 1e-5, func(j int) float64 {
			a, b := pnow(j)
			return math.Exp(10*b) / (math.Exp(10*a) + math.Exp(10*b))
		})
		checkTrack(t, "int (p_now, own)", out.Values[1][k], given, 1e-6, func(j int) float64 {
			a, _ := pnow(j)
			return a
		})
	}
}

// maaiModel is MaAI's static VAP-Realtime export: data_left_frame and
// data_right_frame [1, 1, 1120] (own and rest, 20 Hz steps with context),
// e1_context and e2_context [1, 99, 256] (the last 99 encoder frames,
// which the host keeps), outputs p_now and p_future [1, 2] and the new
// encoder frames e1 and e2 [1, 1, 256]. Here e1 is the left window's mean
// magnitude times w = (1..256)/256, e2 the right's; p_now is the mean of
// each context; p_future is the mean of e1_context's newest frame, then of
// its oldest.
func maaiModel(t *testing.T) string {
	var g graph
	g.input("data_left_frame", onnxFloat, 1, 1, 1120)
	g.input("data_right_frame", onnxFloat, 1, 1, 1120)
	g.input("e1_context", onnxFloat, 1, 99, 256)
	g.input("e2_context", onnxFloat, 1, 99, 256)
	g.output("p_now", onnxFloat, 1, 2)
	g.output("p_future", onnxFloat, 1, 2)
	g.output("e1", onnxFloat, 1, 1, 256)
	g.output("e2", onnxFloat, 1, 1, 256)
	w := make([]float32, 256)
	for i := range w {
		w[i] = float32(i+1) / 256
	}
	g.floats("w", []int{1, 1, 256}, w...)
	for _, side := range []struct{ in, out string }{{"data_left_frame", "e1"}, {"data_right_frame", "e2"}} {
		g.op("Abs", []string{side.in}, side.out+"_abs")
		g.op("ReduceMean", []string{side.out + "_abs"}, side.out+"_mean", attrIs("axes", 2), attrI("keepdims", 1))
		g.op("Mul", []string{side.out + "_mean", "w"}, side.out)
		g.op("ReduceMean", []string{side.out + "_context"}, side.out+"_all", attrIs("axes", 1, 2), attrI("keepdims", 0))
		g.op("Unsqueeze", []string{side.out + "_all", "axis1"}, side.out+"_now")
	}
	g.ints("axis1", []int{1}, 1)
	g.op("Concat", []string{"e1_now", "e2_now"}, "p_now", attrI("axis", 1))
	for _, end := range []struct {
		name       string
		start, end int64
	}{{"newest", 98, 99}, {"oldest", 0, 1}} {
		g.ints(end.name+"_start", []int{1}, end.start)
		g.ints(end.name+"_end", []int{1}, end.end)
		g.op("Slice", []string{"e1_context", end.name + "_start", end.name + "_end", "axis1"}, end.name+"_frame")
		g.op("ReduceMean", []string{end.name + "_frame"}, end.name, attrIs("axes", 2), attrI("keepdims", 0))
	}
	g.op("Concat", []string{"newest", "oldest"}, "p_future", attrI("axis", 1))
	return g.write(t, "maai")
}

const maaiSpec = `family: onnx
model: {path: MODEL}
params: {frame_rate_hz: 20}
onnx:
  sample_rate: 16000
  frame: 1120
  hop: 800
  channel_layout: speaker-vs-rest
  audio_channels:
    - {name: data_left_frame, shape: [batch, 1, frame]}
    - {name: data_right_frame, shape: [batch, 1, frame]}
  state:
    - {input: e1_context, output: e1, shape: [batch, 99, 256], queue: true}
    - {input: e2_context, output: e2, shape: [batch, 99, 256], queue: true}
  scores:
    - {output: p_future, index: 0, role: activity}
    - {output: p_future, index: 1, role: eot}
    - {output: p_now, index: 1, role: int}
`

// MaAI's model fixes its batch at 1, so each speaker's row runs alone;
// its two audio inputs are the own and rest channels; its encoder
// contexts are rolling queues: step n reads the e1 and e2 of steps n-99
// to n-1, oldest first, zeros before the first step.
func TestOnnxMaAIRollsItsContextQueues(t *testing.T) {
	c, _ := conversation(t, "three", 3, 9, []utterance{
		{0, 0.3, "en-us", "Let us start with the budget for the next quarter."},
		{1, 3.6, "en-gb-scotland+m3", "I have the numbers here, they look fine."},
		{2, 5.0, "en-029+f3", "Sorry, which numbers?"},
	})
	out := contractOutput(t, maaiSpec, maaiModel(t), c)
	if out.Hop != 800 {
		t.Fatalf("hop %d, want 800 (20 Hz)", out.Hop)
	}
	const meanW = 257.0 / 512 // mean of (1..256)/256
	for k := range c.Channels {
		own, rest := c.Channels[k], restOf(c, k)
		// Step n's window: the 1120 samples before 800(n+1).
		enc := func(x []float32, n int) float64 {
			if n < 0 {
				return 0
			}
			return meanAbs(x, 800*(n+1)-1120, 800*(n+1)) * meanW
		}
		given := samplesIn(c.Duration) / 800
		checkTrack(t, "activity (newest e1)", out.Values[0][k], given, 1e-6, func(n int) float64 { return enc(own, n-1) })
		checkTrack(t, "eot (oldest e1)", out.Values[1][k], given, 1e-6, func(n int) float64 { return enc(own, n-99) })
		checkTrack(t, "int (mean e2 context)", out.Values[2][k], given, 1e-6, func(n int) float64 {
			var sum float64
			for m := n - 99; m < n; m++ {
				sum += enc(rest, m)
			}
			return sum / 99
		})
	}
}

// turn1MiniModel is Turn-1-Mini's contract: 2,560-sample steps, seven
// recurrent state tensors, eight probabilities per step (one per 20 ms).
// Its model card gives that geometry but not the tensors' names, which
// are the stand-in's own.
// Here the states form a shift register (state_0 counts steps, state_i
// takes state_{i-1}'s last value), and probability f is the mean magnitude
// of the step's f-th 320 samples over 1 + state_6.
func turn1MiniModel(t *testing.T) string {
	var g graph
	g.input("audio", onnxFloat, -1, 2560)
	g.output("probs", onnxFloat, -1, 8)
	g.floats("one", nil, 1)
	for i := range 7 {
		in, out := "state_"+string(rune('0'+i)), "state_"+string(rune('0'+i))+"_out"
		g.input(in, onnxFloat, -1, 1)
		g.output(out, onnxFloat, -1, 1)
		if i == 0 {
			g.op("Add", []string{in, "one"}, out)
		} else {
			g.op("Identity", []string{"state_" + string(rune('0'+i-1))}, out)
		}
	}
	g.frameMeans("audio", "means", []int64{0, 8, 320}, 0)
	g.op("Add", []string{"state_6", "one"}, "divisor")
	g.op("Div", []string{"means", "divisor"}, "probs")
	return g.write(t, "turn-1-mini")
}

const turn1MiniSpec = `family: onnx
model: {path: MODEL}
params: {frame_rate_hz: 50}
onnx:
  sample_rate: 16000
  frame: 2560
  hop: 2560
  channel_layout: per-speaker
  audio: {name: audio, shape: [batch, frame]}
  state:
    - {input: state_0, output: state_0_out, shape: [batch, 1]}
    - {input: state_1, output: state_1_out, shape: [batch, 1]}
    - {input: state_2, output: state_2_out, shape: [batch, 1]}
    - {input: state_3, output: state_3_out, shape: [batch, 1]}
    - {input: state_4, output: state_4_out, shape: [batch, 1]}
    - {input: state_5, output: state_5_out, shape: [batch, 1]}
    - {input: state_6, output: state_6_out, shape: [batch, 1]}
  scores:
    - {output: probs, frames: 8, role: eot}
    - {output: probs, frames: 8, complement: true, role: int}
`

// Turn-1-Mini's eight values per step become a 50 Hz track: value j is
// frame j mod 8 of step j/8, covering samples [320j, 320(j+1)); its seven
// states carry from step to step (state_6 at step n is max(n-6, 0)).
func TestOnnxTurn1MiniGivesEightValuesPerStep(t *testing.T) {
	c, _ := dialogue(t)
	out := contractOutput(t, turn1MiniSpec, turn1MiniModel(t), c)
	if out.Hop != 320 {
		t.Fatalf("hop %d, want 320 (50 Hz)", out.Hop)
	}
	given := samplesIn(c.Duration) / 2560 * 8
	for k, ch := range c.Channels {
		p := func(j int) float64 {
			return meanAbs(ch, 320*j, 320*(j+1)) / float64(1+max(j/8-6, 0))
		}
		checkTrack(t, "eot", out.Values[0][k], given, 1e-6, p)
		checkTrack(t, "int", out.Values[1][k], given, 1e-6, func(j int) float64 { return 1 - p(j) })
	}
}

// smartTurnModel is Smart Turn v3's audio-in export: audio [1, 128000]
// (8 s) to probability [1, 1], the batch fixed at 1. Here the probability
// is the window's mean magnitude.
func smartTurnModel(t *testing.T) string {
	var g graph
	g.input("audio", onnxFloat, 1, 128000)
	g.output("probability", onnxFloat, 1, 1)
	g.op("Abs", []string{"audio"}, "magnitude")
	g.op("ReduceMean", []string{"magnitude"}, "probability", attrIs("axes", 1), attrI("keepdims", 1))
	return g.write(t, "smart-turn-v3")
}

const smartTurnSpec = `family: onnx
model: {path: MODEL}
params: {frame_rate_hz: 10}
onnx:
  sample_rate: 16000
  frame: 128000
  hop: 1600
  channel_layout: per-speaker
  audio: {name: audio, shape: [batch, frame]}
  scores:
    - {output: probability, role: eot}
    - {output: probability, complement: true, role: int}
`

// Smart Turn v3 fixes its batch at 1: each speaker's row runs alone, over
// the last 8 s every 100 ms.
func TestOnnxSmartTurnRunsRowByRow(t *testing.T) {
	c, _ := dialogue(t)
	out := contractOutput(t, smartTurnSpec, smartTurnModel(t), c)
	given := samplesIn(c.Duration) / 1600
	for k, ch := range c.Channels {
		p := func(n int) float64 { return meanAbs(ch, 1600*(n+1)-128000, 1600*(n+1)) }
		checkTrack(t, "eot", out.Values[0][k], given, 1e-6, p)
		checkTrack(t, "int", out.Values[1][k], given, 1e-6, func(n int) float64 { return 1 - p(n) })
	}
}

// endpointer24kModel stands in for the 24 kHz models (Kyutai's SVAD, the
// Mimi endpointer, DualTurn): audio [batch, 1920], one 80 ms Mimi frame,
// to end_of_turn [batch, 1] in float16, the window's mean magnitude.
func endpointer24kModel(t *testing.T) string {
	var g graph
	g.input("audio", onnxFloat, -1, 1920)
	g.output("end_of_turn", onnxFloat16, -1, 1)
	g.op("Abs", []string{"audio"}, "magnitude")
	g.op("ReduceMean", []string{"magnitude"}, "mean", attrIs("axes", 1), attrI("keepdims", 1))
	g.op("Cast", []string{"mean"}, "end_of_turn", attrI("to", onnxFloat16))
	return g.write(t, "endpointer-24k")
}

const endpointer24kSpec = `family: onnx
model: {path: MODEL}
params: {frame_rate_hz: 12.5}
onnx:
  sample_rate: 24000
  frame: 1920
  hop: 1920
  channel_layout: per-speaker
  audio: {name: audio, shape: [batch, frame]}
  scores:
    - {output: end_of_turn, role: eot}
    - {output: end_of_turn, complement: true, role: int}
`

// A 24 kHz model reads each channel resampled by the project's resampler
// (audio.Resample), 1920 samples a step, 1280 of the conversation's; its
// float16 output is read as float32. The stream of resampled samples
// waits for three samples after each, so step n is given once sample
// 1280(n+1)+3 has been heard.
func TestOnnx24kHzModelReadsResampledChannels(t *testing.T) {
	c, _ := dialogue(t)
	out := contractOutput(t, endpointer24kSpec, endpointer24kModel(t), c)
	if out.Hop != 1280 {
		t.Fatalf("hop %d, want 1280 (12.5 Hz)", out.Hop)
	}
	n := samplesIn(c.Duration)
	given := (n - 3) / 1280
	for k, ch := range c.Channels {
		at24 := audio.Resample(ch[:n], SampleRate, 24000)
		// float16 keeps 11 bits: values below 1 within 2^-11.
		p := func(j int) float64 { return meanAbs(at24, 1920*j, 1920*(j+1)) }
		checkTrack(t, "eot", out.Values[0][k], given, 1.0/2048, p)
		checkTrack(t, "int", out.Values[1][k], given, 1.0/2048, func(j int) float64 { return 1 - p(j) })
	}
}

// wavlmModel stands in for the WavLM and ESPnet turn-taking heads: audio
// [batch, 16000] to logits [batch, 25, 5], a 5-class softmax at 25 Hz.
// Here class c's logit is (c+1)·10 times the frame's mean magnitude.
func wavlmModel(t *testing.T) string {
	var g graph
	g.input("audio", onnxFloat, -1, 16000)
	g.output("logits", onnxFloat, -1, 25, 5)
	g.frameMeans("audio", "means", []int64{0, 25, 640}, 1)
	g.floats("classes", []int{5}, 10, 20, 30, 40, 50)
	g.op("Mul", []string{"means", "classes"}, "logits")
	return g.write(t, "wavlm")
}

const wavlmSpec = `family: onnx
model: {path: MODEL}
params: {frame_rate_hz: 25}
onnx:
  sample_rate: 16000
  frame: 16000
  hop: 3200
  channel_layout: per-speaker
  audio: {name: audio, shape: [batch, frame]}
  scores:
    - {output: logits, frames: 5, softmax: true, sum: [0, 1], role: eot}
    - {output: logits, frames: 5, softmax: true, index: 2, role: int}
`

// TurnBench reads the 5-class heads as EOT = P(NA) + P(T) and INT = P(I):
// a softmax over the classes, then a sum of two columns or one column.
func TestOnnxFiveClassHeadSumsSoftmaxColumns(t *testing.T) {
	c, _ := dialogue(t)
	out := contractOutput(t, wavlmSpec, wavlmModel(t), c)
	if out.Hop != 640 {
		t.Fatalf("hop %d, want 640 (25 Hz)", out.Hop)
	}
	given := samplesIn(c.Duration) / 3200 * 5
	for k, ch := range c.Channels {
		probs := func(j int) []float64 {
			m := meanAbs(ch, 640*j, 640*(j+1))
			p := make([]float64, 5)
			var sum float64
			for i := range p {
				p[i] = math.Exp(float64(10*(i+1)) * m)
				sum += p[i]
			}
			for i := range p {
				p[i] /= sum
			}
			return p
		}
		checkTrack(t, "eot", out.Values[0][k], given, 1e-5, func(j int) float64 { p := probs(j); return p[0] + p[1] })
		checkTrack(t, "int", out.Values[1][k], given, 1e-5, func(j int) float64 { return probs(j)[2] })
	}
}

// float16 values read as float32 exactly: normal, subnormal, zero of
// either sign, the largest, the infinities and NaN, each checked against
// its definition, (−1)^s·2^(e−15)·(1 + m/1024), or 2^−14·m/1024 for e = 0.
func TestHalfToFloat32IsExact(t *testing.T) {
	for h := range 1 << 16 {
		s, e, m := h>>15, (h>>10)&0x1f, h&0x3ff
		got := halfToFloat32(uint16(h))
		var want float64
		switch {
		case e == 0x1f && m == 0:
			want = math.Inf(1)
		case e == 0x1f:
			if !math.IsNaN(float64(got)) {
				t.Fatalf("%#04x: %v, want NaN", h, got)
			}
			continue
		case e == 0:
			want = math.Ldexp(float64(m)/1024, -14)
		default:
			want = math.Ldexp(1+float64(m)/1024, e-15)
		}
		if s == 1 {
			want = -want
		}
		if float64(got) != want || math.Signbit(float64(got)) != (s == 1) {
			t.Fatalf("%#04x: %v, want %v", h, got, want)
		}
	}
	for h, want := range map[uint16]float32{0x0001: 5.960464477539063e-08, 0x3c00: 1, 0x7bff: 65504, 0xc000: -2, 0x3555: 0.333251953125} {
		if got := halfToFloat32(h); got != want {
			t.Errorf("%#04x: %v, want %v", h, got, want)
		}
	}
}

// A model whose step gives several values, or whose resampler holds
// samples back, gives a stream's frames when its step completes rather
// than at their own end: each frame arrives in the push that completes
// its step (due), with Detect's scores bit for bit; frames after the last
// step, which Detect fills with the last value, have not arrived.
func TestOnnxStreamGivesFramesAsTheirStepCompletes(t *testing.T) {
	c, _ := dialogue(t)
	rt := onnxRuntime(t)
	for _, tc := range []struct {
		name   string
		system func(t *testing.T) *System
		// due is how many samples frame i needs heard.
		due func(i int) int
	}{
		{"turn-1-mini", contractSystem(turn1MiniSpec, turn1MiniModel), func(i int) int { return 2560 * (i/8 + 1) }},
		{"24k", contractSystem(endpointer24kSpec, endpointer24kModel), func(i int) int { return 1280*(i+1) + 3 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.system(t)
			d, err := s.Open(rt)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			whole := detect(t, d, c)
			st, err := s.OpenStream(rt, len(c.Channels))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			timeline := c.timeline()
			var got []StreamFrame
			push := make([][]float32, len(timeline))
			for at := 0; at < c.heardSamples(); at += 320 {
				end := min(at+320, c.heardSamples())
				for k, ch := range timeline {
					push[k] = ch[at:end]
				}
				frames, err := st.Push(push)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, frames...)
				want := 0
				for want < len(whole.EOT[0]) && tc.due(want) <= end {
					want++
				}
				if len(got) != want {
					t.Fatalf("after %d samples the stream gave %d frames, want %d", end, len(got), want)
				}
			}
			if len(got) == len(whole.EOT[0]) {
				t.Fatalf("the stream gave all %d frames; the last step ends before the dialogue", len(got))
			}
			cut := &Scores{EOT: make([][]float64, len(c.Channels)), INT: make([][]float64, len(c.Channels))}
			for k := range c.Channels {
				cut.EOT[k], cut.INT[k] = whole.EOT[k][:len(got)], whole.INT[k][:len(got)]
			}
			requireSameScores(t, cut, got)
		})
	}
}

// A spec that does not match its model is refused when the system opens,
// before any audio is read, in one line that names the spec's field, the
// model's tensor and its shape.
func TestOnnxContractMismatchNamesFieldTensorAndShape(t *testing.T) {
	rt := onnxRuntime(t)
	for _, tc := range []struct {
		name, spec string
		model      func(t *testing.T) string
		old, new   string
		want       string
	}{
		{"maai frame", maaiSpec, maaiModel, "frame: 1120", "frame: 1000",
			`audio_channels[0].shape [batch 1 frame]: dimension 2: the spec gives frame = 1000, the model's input is data_left_frame float32 [1 1 1120]`},
		{"maai context length", maaiSpec, maaiModel, "[batch, 99, 256], queue: true}\n    - {input: e2", "[batch, 98, 256], queue: true}\n    - {input: e2",
			`state[0].input.shape [batch 98 256]: dimension 1: the spec gives 98, the model's input is e1_context float32 [1 99 256]`},
		{"maai state output", maaiSpec, maaiModel, "output: e1,", "output: e1_out,",
			`state[0].output "e1_out": the model has no such output; its outputs are p_now float32 [1 2], p_future float32 [1 2], e1 float32 [1 1 256], e2 float32 [1 1 256]`},
		{"vap frames", vapSpec, vapModel, "frames: 250", "frames: 2000",
			`scores[0].frames 2000: the model's output is p_future float32 [? 1000 2], 1000 frames a step`},
		{"vap index", vapSpec, vapModel, "index: 0, role: int", "index: 2, role: int",
			`scores[1]: index 2 outside the 2 values of a frame of the model's output p_now float32 [? 1000 2]`},
		{"vap layout", vapSpec, vapModel, "speaker-vs-rest", "per-speaker",
			`audio.shape [batch channels frame]: dimension 1: the spec gives channels = 1, the model's input is waveform float32 [? 2 320000]`},
		{"turn-1-mini state size", turn1MiniSpec, turn1MiniModel, "{input: state_6, output: state_6_out, shape: [batch, 1]}", "{input: state_6, output: state_6_out, shape: [batch, 2]}",
			`state[6].output "state_6_out": the model's output is state_6_out float32 [? 1], 1 values a row; the state's shape [batch 2] holds 2`},
		{"smart turn window", smartTurnSpec, smartTurnModel, "frame: 128000", "frame: 64000",
			`audio.shape [batch frame]: dimension 1: the spec gives frame = 64000, the model's input is audio float32 [1 128000]`},
		{"batch fixed at 2", smartTurnSpec, func(t *testing.T) string {
			var g graph
			g.input("audio", onnxFloat, 2, 128000)
			g.output("probability", onnxFloat, 2, 1)
			g.op("ReduceMean", []string{"audio"}, "probability", attrIs("axes", 1), attrI("keepdims", 1))
			return g.write(t, "batch-of-two")
		}, "frame: 128000", "frame: 128000",
			`audio.shape [batch frame]: dimension 0 is the batch, the model's input is audio float32 [2 128000]: a fixed batch must be 1`},
		{"24k output type", endpointer24kSpec, endpointer24kModel, "- {output: end_of_turn, role: eot}", "- {output: audio, role: eot}",
			`scores[0].output "audio": the model has no such output; its outputs are end_of_turn float16 [? 1]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(tc.spec, tc.old) {
				t.Fatalf("the spec has no %q", tc.old)
			}
			s := contractSystem(strings.ReplaceAll(tc.spec, tc.old, tc.new), tc.model)(t)
			_, err := s.Open(rt)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %q, want one line containing %q", err, tc.want)
			}
		})
	}
}

// The fields the contracts add are checked when the spec is parsed, each
// error naming its field and value.
func TestOnnxContractFieldsAreCheckedWhenParsed(t *testing.T) {
	for _, tc := range []struct {
		name, spec, old, new, want string
	}{
		{"rate", endpointer24kSpec, "sample_rate: 24000", "sample_rate: 4000", "sample_rate 4000: want 8000 to 48000 Hz"},
		{"hop of a fraction of a sample", endpointer24kSpec, "hop: 1920", "hop: 1000", "hop 1000 at sample_rate 24000 over 1 frames a step is not a whole number of 16000 Hz samples"},
		{"a value a step of 5 s", vapSpec, "frames: 250", "frames: 0", "gives a value every 80000 samples; at most 16000"},
		{"frames differ", turn1MiniSpec, "frames: 8, complement", "frames: 4, complement", "scores[1].frames 4: scores[0] reads 8 frames a step"},
		{"index and sum", wavlmSpec, "sum: [0, 1]", "sum: [0, 1], index: 3", "scores[0]: index 3 and sum [0 1]: give one of them"},
		{"softmax and sigmoid", wavlmSpec, "softmax: true, index: 2", "softmax: true, sigmoid: true, index: 2", "scores[1]: softmax and sigmoid: give one of them"},
		{"audio twice", maaiSpec, "  audio_channels:", "  audio: {name: audio, shape: [batch, frame]}\n  audio_channels:", "audio and audio_channels: give one of them"},
		{"audio inputs per channel", maaiSpec, "speaker-vs-rest", "per-speaker", "audio_channels: 2 inputs, layout per-speaker has 1 channels"},
		{"queue batch", maaiSpec, "[batch, 99, 256], queue", "[99, batch, 256], queue", "state[0].shape [99 batch 256]: a queue state's first dimension is batch"},
		{"channel input with channels", maaiSpec, "{name: data_left_frame, shape: [batch, 1, frame]}", "{name: data_left_frame, shape: [batch, channels, frame]}", "audio_channels[0].shape: [batch channels frame]: need batch, then frame"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(tc.spec, tc.old) {
				t.Fatalf("the spec has no %q", tc.old)
			}
			_, err := ParseSystem([]byte(strings.ReplaceAll(tc.spec, tc.old, tc.new)), "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// Every field the contracts add changes what the model stage computes, so
// it changes the model stage's identity; specs that use none of them keep
// the identity they had (their normalised form names none).
func TestOnnxContractFieldsEnterTheModelIdentity(t *testing.T) {
	rt := onnxRuntime(t)
	hash := func(spec string, model func(t *testing.T) string) string {
		h, err := contractSystem(spec, model)(t).ModelHash(rt)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	for _, tc := range []struct {
		name, spec string
		model      func(t *testing.T) string
		old, new   string
	}{
		{"frames", vapSpec, vapModel, "frames: 250", "frames: 125"},
		{"negative index", vapSpec, vapModel, "index: -1", "index: 1"},
		{"complement", turn1MiniSpec, turn1MiniModel, "complement: true", "complement: false"},
		{"softmax", wavlmSpec, wavlmModel, "softmax: true, index: 2", "index: 2"},
		{"sum", wavlmSpec, wavlmModel, "sum: [0, 1]", "sum: [0, 1, 3]"},
		{"queue", maaiSpec, maaiModel, "queue: true}\n    - {input: e2", "queue: false}\n    - {input: e2"},
		{"audio channels", maaiSpec, maaiModel, "data_left_frame, shape: [batch, 1, frame]}\n    - {name: data_right_frame", "data_right_frame, shape: [batch, 1, frame]}\n    - {name: data_left_frame"},
		{"sample rate", endpointer24kSpec, endpointer24kModel, "sample_rate: 24000", "sample_rate: 48000"},
	} {
		if !strings.Contains(tc.spec, tc.old) {
			t.Fatalf("%s: the spec has no %q", tc.name, tc.old)
		}
		if hash(tc.spec, tc.model) == hash(strings.ReplaceAll(tc.spec, tc.old, tc.new), tc.model) {
			t.Errorf("%s: %q for %q leaves the model hash as it was", tc.name, tc.new, tc.old)
		}
	}
	silero, err := systemOf(t, "onnx").Normalised(rt)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"frames", "sum", "softmax", "complement", "queue", "audio_channels"} {
		if strings.Contains(string(silero), `"`+key+`"`) {
			t.Errorf("the Silero spec's normalised form names %s: %s", key, silero)
		}
	}
}
