package detect

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/features/reference"
)

// Stand-ins for Smart Turn v3 and v2, built like the probe model
// (onnxfixture_test.go) with the published models' inputs and outputs:
//
//	v3: input_features [batch, 80, 800] -> logits [batch, 1]
//	    logits = sigmoid(mean(input_features[b]))
//	v2: input_values [batch, S], attention_mask int64 [batch, S]
//	    -> probabilities [batch, 1]
//	    probabilities = sigmoid(mean(|input_values[b]|) - mean(attention_mask[b]))
//
// Smart Turn v3's ONNX graph ends in a sigmoid: its "logits" output is
// a probability (its inference.py reads it as one).

// intsAttr and intAttr are ONNX AttributeProtos of type INTS and INT.
func intsAttr(name string, values ...int) protoMessage {
	a := protoMessage(nil).bytes(1, []byte(name))
	for _, v := range values {
		a = a.varint(8, uint64(v))
	}
	return a.varint(20, 7)
}

func intAttr(name string, v int) protoMessage {
	return protoMessage(nil).bytes(1, []byte(name)).varint(3, uint64(v)).varint(20, 2)
}

// writeGraph writes a model of one graph (opset 13) and returns its path.
func writeGraph(t *testing.T, name string, nodes, inputs, outputs []protoMessage) string {
	t.Helper()
	var g protoMessage
	for _, n := range nodes {
		g = g.bytes(1, n)
	}
	g = g.bytes(2, []byte(name))
	for _, in := range inputs {
		g = g.bytes(11, in)
	}
	for _, out := range outputs {
		g = g.bytes(12, out)
	}
	model := protoMessage(nil).varint(1, 8).bytes(2, []byte("floorbench-test")).bytes(7, g).
		bytes(8, protoMessage(nil).bytes(1, nil).varint(2, 13))
	path := filepath.Join(t.TempDir(), name+".onnx")
	if err := os.WriteFile(path, model, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeSmartTurnV3(t *testing.T, bins, frames int) string {
	return writeSmartTurnV3Batch(t, -1, bins, frames)
}

// writeSmartTurnV3Batch is the v3 stand-in with its batch dimension
// batch: -1 free, 1 fixed as the official file declares it.
func writeSmartTurnV3Batch(t *testing.T, batch, bins, frames int) string {
	return writeGraph(t, "smart-turn-v3", []protoMessage{
		node("ReduceMean", []string{"input_features"}, []string{"per_bin"}, intsAttr("axes", 2), intAttr("keepdims", 0)),
		node("ReduceMean", []string{"per_bin"}, []string{"mean"}, intsAttr("axes", 1), intAttr("keepdims", 1)),
		node("Sigmoid", []string{"mean"}, []string{"logits"}),
	}, []protoMessage{valueInfo("input_features", onnxFloat, batch, bins, frames)},
		[]protoMessage{valueInfo("logits", onnxFloat, batch, 1)})
}

func writeSmartTurnV2(t *testing.T, samples int) string {
	const batch = -1
	return writeGraph(t, "smart-turn-v2", []protoMessage{
		node("Abs", []string{"input_values"}, []string{"magnitude"}),
		node("ReduceMean", []string{"magnitude"}, []string{"level"}, intsAttr("axes", 1), intAttr("keepdims", 1)),
		node("Cast", []string{"attention_mask"}, []string{"mask"}, intAttr("to", onnxFloat)),
		node("ReduceMean", []string{"mask"}, []string{"heard"}, intsAttr("axes", 1), intAttr("keepdims", 1)),
		node("Sub", []string{"level", "heard"}, []string{"difference"}),
		node("Sigmoid", []string{"difference"}, []string{"probabilities"}),
	}, []protoMessage{
		valueInfo("input_values", onnxFloat, batch, samples),
		valueInfo("attention_mask", onnxInt64, batch, samples),
	}, []protoMessage{valueInfo("probabilities", onnxFloat, batch, 1)})
}

// Both stand-ins' score is read as EOT alone: Smart Turn is an EOT-only
// system (docs/systems.md#smart-turn-v3).
const smartTurnV3Spec = `family: onnx
model: {path: MODEL}
params: {frame_rate_hz: 100}
onnx:
  sample_rate: 16000
  frame: 128000
  hop: 16000
  channel_layout: per-speaker
  front_end: {kind: whisper-log-mel, mel_bins: 80, normalize: true, pad: front}
  audio: {name: input_features, shape: [batch, 80, 800]}
  scores:
    - {output: logits, index: 0, role: eot}
`

const smartTurnV2Spec = `family: onnx
model: {path: MODEL}
params: {frame_rate_hz: 100}
onnx:
  sample_rate: 16000
  frame: 24000
  hop: 4000
  channel_layout: per-speaker
  front_end: {kind: wav2vec2, normalize: true, pad: back, attention_mask: attention_mask}
  audio: {name: input_values, shape: [batch, frame]}
  scores:
    - {output: probabilities, index: 0, role: eot}
`

func frontEndSystem(t *testing.T, spec, model string) *System {
	t.Helper()
	s, err := ParseSystem([]byte(strings.ReplaceAll(spec, "MODEL", model)), "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// buzz is a speaker's channel: a voiced buzz in syllables from start
// (seconds), seeded noise around it.
func buzz(seconds, start, f0 float64, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 3))
	out := make([]float32, int(seconds*SampleRate))
	for i := range out {
		sec := float64(i) / SampleRate
		v := 0.001 * rng.NormFloat64()
		if sec >= start {
			env := math.Max(0, math.Sin(2*math.Pi*2*(sec-start)))
			v += 0.2 * env * (math.Mod(sec*f0, 1) - 0.5)
		}
		out[i] = float32(v)
	}
	return out
}

// window is the frame samples of ch that end at sample end, zeros before
// the channel's start: what a model step sees, cut here directly.
func window(ch []float32, end, frame int) (w []float32, heard int) {
	w = make([]float32, frame)
	for i := range frame {
		if n := end - frame + i; n >= 0 {
			w[i] = ch[n]
		}
	}
	return w, min(end, frame)
}

// Smart Turn v3's contract through the onnx family: each step's score is
// the stand-in's function of Whisper's log-mel features of the last 8 s,
// zeros in front before 8 s have been heard, the whole chunk normalised,
// each value worked out here with the reference front end.
func TestSmartTurnV3FrontEnd(t *testing.T) {
	rt := onnxRuntime(t)
	s := frontEndSystem(t, smartTurnV3Spec, writeSmartTurnV3(t, 80, 800))
	c := &Conversation{ID: "v3", SampleRate: SampleRate, Duration: 9.5,
		Channels: [][]float32{buzz(9.5, 0.3, 140, 1), buzz(9.5, 4.2, 210, 2)}}
	out, err := openModel(t, s, rt).Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	const frame, hop = 128000, 16000
	for k, ch := range c.Channels {
		track := out.Values[0][k]
		if len(track) != 9 {
			t.Fatalf("speaker %d: %d values, want 9 (one a second)", k+1, len(track))
		}
		for j, got := range track {
			w, _ := window(ch, (j+1)*hop, frame)
			var sum float64
			for _, bin := range reference.LogMel(reference.Normalized(w, frame), 80) {
				for _, v := range bin {
					sum += v
				}
			}
			want := 1 / (1 + math.Exp(-sum/(80*800)))
			if math.Abs(float64(got)-want) > 1e-4 {
				t.Fatalf("speaker %d step %d: eot %v, want %v", k+1, j, got, want)
			}
		}
	}
}

// Smart Turn v2's contract: the samples heard first, normalised over
// themselves, zeros after them, and an attention mask of ones over them,
// then the last 1.5 s once it has been heard.
func TestSmartTurnV2FrontEnd(t *testing.T) {
	rt := onnxRuntime(t)
	const frame, hop = 24000, 4000
	s := frontEndSystem(t, smartTurnV2Spec, writeSmartTurnV2(t, frame))
	c := &Conversation{ID: "v2", SampleRate: SampleRate, Duration: 3,
		Channels: [][]float32{buzz(3, 0.2, 120, 3), buzz(3, 1.1, 190, 4)}}
	out, err := openModel(t, s, rt).Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	for k, ch := range c.Channels {
		for j, got := range out.Values[0][k] {
			w, heard := window(ch, (j+1)*hop, frame)
			in := reference.Normalized(append(w[frame-heard:], make([]float32, frame-heard)...), heard)
			var level float64
			for _, v := range in {
				level += math.Abs(float64(v))
			}
			want := 1 / (1 + math.Exp(-(level/frame - float64(heard)/frame)))
			if math.Abs(float64(got)-want) > 1e-5 {
				t.Fatalf("speaker %d step %d (%d samples heard): %v, want %v", k+1, j, heard, got, want)
			}
		}
	}
}

// Batched across conversations, each row keeps its own count of samples
// heard: a conversation that joins a running batch is padded as if it
// ran alone.
func TestFrontEndsBatchLikeTheyRunAlone(t *testing.T) {
	rt := onnxRuntime(t)
	convs := []*Conversation{
		{ID: "long", SampleRate: SampleRate, Duration: 4, Channels: [][]float32{buzz(4, 0.1, 130, 5), buzz(4, 1.5, 170, 6)}},
		{ID: "short", SampleRate: SampleRate, Duration: 1.2, Channels: [][]float32{buzz(1.2, 0, 220, 7)}},
		{ID: "late", SampleRate: SampleRate, Duration: 2.7, Channels: [][]float32{buzz(2.7, 0.4, 110, 8), buzz(2.7, 0.9, 260, 9), buzz(2.7, 0, 90, 10)}},
	}
	for _, tc := range []struct {
		name string
		s    *System
	}{
		{"v2", frontEndSystem(t, smartTurnV2Spec, writeSmartTurnV2(t, 24000))},
		{"v3", frontEndSystem(t, strings.NewReplacer("128000", "32000", "hop: 16000", "hop: 4000", "800]", "200]").Replace(smartTurnV3Spec), writeSmartTurnV3(t, 80, 200))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := map[string]*ModelOutput{}
			m := openModel(t, tc.s, rt)
			for _, c := range convs {
				out, err := m.Run(context.Background(), c)
				if err != nil {
					t.Fatal(err)
				}
				want[c.ID] = out
			}
			for _, rows := range []int{1, 3, 64} {
				rt.BatchRows = rows
				got := runAll(t, openModel(t, tc.s, rt), convs, false, false)
				for id, w := range want {
					if err := sameOutput(w, got[id]); err != nil {
						t.Errorf("%d rows: conversation %s: %v", rows, id, err)
					}
				}
			}
		})
	}
}

// A front end that does not fit the spec's audio input, or fields that
// contradict each other, are one line naming the field, the tensor and
// its shape.
func TestFrontEndSpecErrors(t *testing.T) {
	for _, c := range []struct {
		name, spec, from, to, want string
	}{
		{"mel bins", smartTurnV3Spec, "mel_bins: 80", "mel_bins: 128",
			`onnx: front_end.mel_bins 128: input "input_features" has shape [batch 80 800], but whisper-log-mel over frame 128000 (160 samples a frame) with mel_bins 128 gives [batch 128 800]`},
		{"chunk", smartTurnV3Spec, "frame: 128000", "frame: 64000",
			`onnx: frame 64000: input "input_features" has shape [batch 80 800], but whisper-log-mel over frame 64000 (160 samples a frame) with mel_bins 80 gives [batch 80 400]`},
		{"raw shape", smartTurnV3Spec, "[batch, 80, 800]", "[batch, frame]",
			`onnx: audio.shape: input "input_features" has shape [batch frame], but whisper-log-mel over frame 128000 (160 samples a frame) with mel_bins 80 gives [batch 80 800]`},
		{"no pad", smartTurnV3Spec, ", pad: front", "",
			`onnx: front_end.pad "": want front or back`},
		{"kind", smartTurnV3Spec, "whisper-log-mel", "kaldi-fbank",
			`onnx: front_end.kind "kaldi-fbank": want whisper-log-mel or wav2vec2`},
		{"no bins", smartTurnV3Spec, "mel_bins: 80, ", "",
			"onnx: front_end whisper-log-mel (mel_bins 0, frame 128000): mel bins 0: want 1 to 201, the FFT's frequency bins"},
		{"empty filters", smartTurnV3Spec, "mel_bins: 80", "mel_bins: 200",
			"onnx: front_end whisper-log-mel (mel_bins 200, frame 128000): mel bins 200: filter 0 covers no frequency bin of a 400-point FFT"},
		{"short frame", smartTurnV3Spec, "frame: 128000\n  hop: 16000", "frame: 320\n  hop: 160",
			"onnx: front_end whisper-log-mel (mel_bins 80, frame 320): chunk of 320 samples: want at least 400, one STFT frame"},
		{"mask in front", smartTurnV2Spec, "pad: back", "pad: front",
			`onnx: front_end.attention_mask "attention_mask": needs pad: back (with pad: front every sample of the window is audio)`},
		{"mask of whisper", smartTurnV3Spec, "pad: front}", "pad: back, attention_mask: mask}",
			`onnx: front_end.attention_mask "mask": only the wav2vec2 front end gives one`},
		{"mask is audio", smartTurnV2Spec, "attention_mask: attention_mask", "attention_mask: input_values",
			`onnx: front_end.attention_mask: input "input_values" is already audio`},
		{"bins of wav2vec2", smartTurnV2Spec, "normalize: true", "normalize: true, mel_bins: 80",
			"onnx: front_end.mel_bins 80: the wav2vec2 front end gives samples, not mel bins"},
		{"wav2vec2 shape", smartTurnV2Spec, "[batch, frame]", "[batch, 80, 800]",
			`onnx: audio.shape: dimension "80": want batch, channels, frame or 1`},
		{"whisper at 24 kHz", smartTurnV3Spec, "sample_rate: 16000", "sample_rate: 24000",
			"onnx: front_end whisper-log-mel: sample_rate 24000: the front ends read 16000 Hz, as Hugging Face's feature extractors they follow do"},
		{"wav2vec2 at 8 kHz", smartTurnV2Spec, "sample_rate: 16000", "sample_rate: 8000",
			"onnx: front_end wav2vec2: sample_rate 8000: the front ends read 16000 Hz"},
		{"audio channels", smartTurnV2Spec, "audio: {name: input_values, shape: [batch, frame]}", "audio_channels: [{name: input_values, shape: [batch, frame]}]",
			"onnx: front_end wav2vec2 and audio_channels: a front end fills the one audio input (give audio, with channels in its shape for speaker-vs-rest)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(c.spec, c.from) {
				t.Fatalf("the spec has no %q", c.from)
			}
			_, err := ParseSystem([]byte(strings.Replace(c.spec, c.from, c.to, 1)), "")
			if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// A spec whose front end's tensors the model does not have, or has with
// other types or sizes, does not open.
func TestFrontEndSpecMustMatchTheModel(t *testing.T) {
	rt := onnxRuntime(t)
	v2 := writeSmartTurnV2(t, 24000)
	for _, c := range []struct {
		name, spec, model, want string
	}{
		{"v2 spec, v3 model", smartTurnV2Spec, writeSmartTurnV3(t, 80, 800),
			`audio "input_values": the model has no such input; its inputs are input_features float32 [? 80 800]; front_end.attention_mask "attention_mask": the model has no such input; its inputs are input_features float32 [? 80 800]`},
		{"no mask in the spec", strings.Replace(smartTurnV2Spec, ", attention_mask: attention_mask", "", 1), v2,
			`the model's input attention_mask int64 [? 24000] is not in the spec (as audio, attention mask, state or constant)`},
		{"128 bins", strings.NewReplacer("mel_bins: 80", "mel_bins: 128", "80, 800", "128, 800").Replace(smartTurnV3Spec), writeSmartTurnV3(t, 80, 800),
			`audio.shape [batch 128 800]: dimension 1: the spec gives 128, the model's input is input_features float32 [? 80 800]`},
		{"mask of another type", smartTurnV2Spec, writeGraph(t, "float-mask", []protoMessage{
			node("Add", []string{"input_values", "attention_mask"}, []string{"probabilities"}),
		}, []protoMessage{valueInfo("input_values", onnxFloat, -1, 24000), valueInfo("attention_mask", onnxFloat, -1, 24000)},
			[]protoMessage{valueInfo("probabilities", onnxFloat, -1, 24000)}),
			`front_end.attention_mask "attention_mask": the model's input is attention_mask float32 [? 24000], the spec gives int64`},
		{"mask of a batch past 1", smartTurnV2Spec, writeGraph(t, "batch-2-mask", []protoMessage{
			node("Abs", []string{"input_values"}, []string{"probabilities"}),
		}, []protoMessage{valueInfo("input_values", onnxFloat, -1, 24000), valueInfo("attention_mask", onnxInt64, 2, 24000)},
			[]protoMessage{valueInfo("probabilities", onnxFloat, -1, 24000)}),
			`front_end.attention_mask (audio.shape) [batch frame]: dimension 0 is the batch, the model's input is attention_mask int64 [2 24000]: a fixed batch must be 1`},
		{"another window", strings.Replace(smartTurnV2Spec, "frame: 24000", "frame: 16000", 1), v2,
			`audio.shape [batch frame]: dimension 1: the spec gives frame = 16000, the model's input is input_values float32 [? 24000]; front_end.attention_mask (audio.shape) [batch frame]: dimension 1: the spec gives frame = 16000, the model's input is attention_mask int64 [? 24000]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := frontEndSystem(t, c.spec, c.model).OpenModel(rt)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// The front end is part of the model stage's identity: each field that
// changes the model's input changes the model hash (and the system's),
// while systems without a front end keep the identity they had.
func TestFrontEndIsPartOfTheModelsIdentity(t *testing.T) {
	rt := Runtime{Tools: t.TempDir()}
	hashesOf := func(spec string) (string, string) {
		s := frontEndSystem(t, spec, "smart-turn-v3.onnx")
		s.model.SHA256 = strings.Repeat("a", 64)
		return hashes(t, s, rt)
	}
	baseSystem, baseModel := hashesOf(smartTurnV3Spec)
	for _, change := range []struct{ from, to string }{
		{"normalize: true", "normalize: false"},
		{"pad: front", "pad: back"},
		{"mel_bins: 80", "mel_bins: 81"},
		{"kind: whisper-log-mel, mel_bins: 80", "kind: wav2vec2"},
	} {
		spec := strings.Replace(smartTurnV3Spec, change.from, change.to, 1)
		if change.to == "mel_bins: 81" {
			spec = strings.Replace(spec, "80, 800", "81, 800", 1)
		}
		if change.to == "kind: wav2vec2" {
			spec = strings.Replace(spec, "[batch, 80, 800]", "[batch, frame]", 1)
		}
		system, model := hashesOf(spec)
		if model == baseModel || system == baseSystem {
			t.Errorf("%s -> %s leaves the hashes alone", change.from, change.to)
		}
	}
	if system, model := hashesOf(strings.Replace(smartTurnV3Spec, "{kind: whisper-log-mel, mel_bins: 80, normalize: true, pad: front}",
		"{pad: front, normalize: true, mel_bins: 80, kind: whisper-log-mel}", 1)); system != baseSystem || model != baseModel {
		t.Error("the front end's fields in another order change the hashes")
	}
	written, err := frontEndSystem(t, smartTurnV3Spec, "smart-turn-v3.onnx").SpecYAML()
	if err != nil {
		t.Fatal(err)
	}
	if system, model := hashesOf(string(written)); system != baseSystem || model != baseModel {
		t.Errorf("written out and read back, the spec changes its hashes:\n%s", written)
	}
	silero, err := systemOf(t, "onnx").Normalised(Runtime{Tools: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(silero), "front_end") {
		t.Errorf("a spec without a front end hashes one: %s", silero)
	}
}

// Smart Turn v3 as the official file declares it, input_features
// [1, 80, 800] with the batch fixed at 1: each row runs in a session call
// of its own, with its own window, count of samples heard and features,
// and every value equals the stand-in's with a free batch, run alone or
// batched across conversations, rows joining and leaving.
func TestSmartTurnV3FrontEndOfABatchFixedAtOne(t *testing.T) {
	rt := onnxRuntime(t)
	spec := strings.Replace(smartTurnV3Spec, "hop: 16000", "hop: 8000", 1)
	free := frontEndSystem(t, spec, writeSmartTurnV3(t, 80, 800))
	fixed := frontEndSystem(t, spec, writeSmartTurnV3Batch(t, 1, 80, 800))
	one := openModel(t, fixed, rt)
	if !one.model.(*onnxModel).tensors.oneRow {
		t.Fatal("a model whose batch is fixed at 1 does not run row by row")
	}
	convs := []*Conversation{
		{ID: "long", SampleRate: SampleRate, Duration: 3.5, Channels: [][]float32{buzz(3.5, 0.1, 130, 11), buzz(3.5, 1.5, 170, 12)}},
		{ID: "short", SampleRate: SampleRate, Duration: 1.2, Channels: [][]float32{buzz(1.2, 0, 220, 13)}},
		{ID: "late", SampleRate: SampleRate, Duration: 2.1, Channels: [][]float32{buzz(2.1, 0.4, 110, 14), buzz(2.1, 0.9, 260, 15), buzz(2.1, 0, 90, 16)}},
	}
	batched := runAll(t, openModel(t, free, rt), convs, false, false)
	for _, c := range convs {
		got, err := one.Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Values[0][0]) == 0 {
			t.Fatalf("conversation %s: no values", c.ID)
		}
		if err := sameOutput(batched[c.ID], got); err != nil {
			t.Errorf("run alone: conversation %s: %v", c.ID, err)
		}
	}
	for _, rows := range []int{1, 3, 64} {
		rt.BatchRows = rows
		got := runAll(t, openModel(t, fixed, rt), convs, true, false)
		for id, w := range batched {
			if err := sameOutput(w, got[id]); err != nil {
				t.Errorf("%d rows: conversation %s: %v", rows, id, err)
			}
		}
	}
}
