package detect

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The onnx family's layouts and roles are exercised on a small model built
// here, field by field in ONNX's protobuf encoding (onnx.proto: ModelProto,
// GraphProto, NodeProto, ValueInfoProto), so that no model file or Python
// toolchain is needed. For a batch of rows with two channels each, the model
// computes, per step:
//
//	scores[b] = gain * mean(|audio[b, c, :]|) for c = 0, 1
//	stateN    = state + gain
//	count     = stateN
//
// which exposes the row and channel order, the window, the constant and the
// state carry to a test that computes the same numbers itself.

type protoMessage []byte

func (m protoMessage) varint(field int, v uint64) protoMessage {
	m = binary.AppendUvarint(m, uint64(field)<<3)
	return binary.AppendUvarint(m, v)
}

func (m protoMessage) bytes(field int, b []byte) protoMessage {
	m = binary.AppendUvarint(m, uint64(field)<<3|2)
	m = binary.AppendUvarint(m, uint64(len(b)))
	return append(m, b...)
}

// ONNX element types.
const (
	onnxFloat = 1
	onnxInt64 = 7
)

// valueInfo describes a tensor: dims are sizes, or "" for a free dimension.
func valueInfo(name string, elem int, dims ...int) protoMessage {
	var shape protoMessage
	for _, d := range dims {
		if d < 0 {
			shape = shape.bytes(1, protoMessage(nil).bytes(2, []byte("batch")))
		} else {
			shape = shape.bytes(1, protoMessage(nil).varint(1, uint64(d)))
		}
	}
	tensor := protoMessage(nil).varint(1, uint64(elem)).bytes(2, shape)
	return protoMessage(nil).bytes(1, []byte(name)).bytes(2, protoMessage(nil).bytes(1, tensor))
}

func node(op string, inputs, outputs []string, attrs ...protoMessage) protoMessage {
	var n protoMessage
	for _, in := range inputs {
		n = n.bytes(1, []byte(in))
	}
	for _, out := range outputs {
		n = n.bytes(2, []byte(out))
	}
	n = n.bytes(3, []byte(op+"_"+outputs[0])).bytes(4, []byte(op))
	for _, a := range attrs {
		n = n.bytes(5, a)
	}
	return n
}

// writeProbeModel writes the model described above for frames of frame
// samples and returns its path.
func writeProbeModel(t *testing.T, frame int) string {
	t.Helper()
	const batch = -1
	axes := protoMessage(nil).bytes(1, []byte("axes")).varint(8, 2).varint(20, 7)
	keep := protoMessage(nil).bytes(1, []byte("keepdims")).varint(3, 0).varint(20, 2)
	var g protoMessage
	for _, n := range []protoMessage{
		node("Abs", []string{"audio"}, []string{"magnitude"}),
		node("ReduceMean", []string{"magnitude"}, []string{"mean"}, axes, keep),
		node("Mul", []string{"mean", "gain"}, []string{"scores"}),
		node("Add", []string{"state", "gain"}, []string{"stateN"}),
		node("Identity", []string{"stateN"}, []string{"count"}),
	} {
		g = g.bytes(1, n)
	}
	g = g.bytes(2, []byte("probe"))
	for _, in := range []protoMessage{
		valueInfo("audio", onnxFloat, batch, 2, frame),
		valueInfo("state", onnxFloat, batch, 1),
		valueInfo("gain", onnxFloat),
	} {
		g = g.bytes(11, in)
	}
	for _, out := range []protoMessage{
		valueInfo("scores", onnxFloat, batch, 2),
		valueInfo("stateN", onnxFloat, batch, 1),
		valueInfo("count", onnxFloat, batch, 1),
	} {
		g = g.bytes(12, out)
	}
	model := protoMessage(nil).varint(1, 8).bytes(2, []byte("floorbench-test")).bytes(7, g).
		bytes(8, protoMessage(nil).bytes(1, nil).varint(2, 13))
	path := filepath.Join(t.TempDir(), "probe.onnx")
	if err := os.WriteFile(path, model, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const probeSpec = `family: onnx
model: {path: MODEL}
params: {frame_rate_hz: 100}
onnx:
  sample_rate: 16000
  frame: 480
  hop: 160
  channel_layout: speaker-vs-rest
  audio: {name: audio, shape: [batch, channels, frame]}
  state:
    - {input: state, output: stateN, shape: [batch, 1]}
  constants:
    - {name: gain, type: float32, value: 0.5}
  scores:
    - {output: scores, index: 0, role: activity}
    - {output: scores, index: 1, role: int}
    - {output: count, index: 0, role: eot, sigmoid: true}
`

// Speaker-vs-rest feeds row k the speaker's own channel, then the others'
// sum; direct eot and int outputs replace the mapping's; state is carried
// and constants are passed. Every value is checked against the same
// arithmetic done here.
func TestOnnxSpeakerVsRestLayoutAndDirectScores(t *testing.T) {
	rt := onnxRuntime(t)
	const frame, hop, gain = 480, 160, 0.5
	model := writeProbeModel(t, frame)
	s, err := ParseSystem([]byte(strings.ReplaceAll(probeSpec, "MODEL", model)), "")
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Open(rt)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c, _ := conversation(t, "probe", 3, 2.5, []utterance{
		{0, 0.1, "en-us", "One."},
		{1, 0.8, "en-gb+f2", "Two."},
		{2, 1.5, "en-029+f3", "Three."},
	})
	got := detect(t, d, c)
	// Worked out here from the raw channels, not with the detector's
	// helpers. At 100 frames a second, frame i ends at sample (i+1)*160,
	// which is where the model's step i ends (hop 160, first step ending at
	// 160): frame i shows step i. Step i's window is the 480 samples before
	// (i+1)*160, zeros before the conversation's start; its second channel
	// is the other speakers' samples summed and clipped to [-1, 1]. The
	// state starts at 0 and gains 0.5 a step, so after step i it is
	// 0.5*(i+1).
	const fps = 100
	if frames := int(math.Floor(2.5 * fps)); len(got.INT) != 3 || len(got.INT[0]) != frames || len(got.EOT[0]) != frames {
		t.Fatalf("%d speakers, %d INT and %d EOT frames; want 3 and %d", len(got.INT), len(got.INT[0]), len(got.EOT[0]), frames)
	}
	for k := range c.Channels {
		for i := range got.INT[k] {
			end := (i + 1) * hop
			var sum float64
			for n := max(0, end-frame); n < end; n++ {
				var others float32
				for m, ch := range c.Channels {
					if m != k {
						others += ch[n]
					}
				}
				sum += math.Abs(float64(max(-1, min(1, others))))
			}
			wantINT := gain * sum / frame
			wantEOT := 1 / (1 + math.Exp(-gain*float64(i+1)))
			if math.Abs(got.INT[k][i]-wantINT) > 1e-6 || math.Abs(got.EOT[k][i]-wantEOT) > 1e-6 {
				t.Fatalf("speaker %d frame %d: INT %v EOT %v, want %v and %v",
					k+1, i, got.INT[k][i], got.EOT[k][i], wantINT, wantEOT)
			}
		}
	}
	requireFloorEvents(t, got)
}

// The second channel of a speaker-vs-rest model is the other speakers'
// samples summed and clipped to [-1, 1]: loud overlap, which the fixture's
// voices never reach, saturates instead of wrapping past full scale.
func TestRestSumsTheOtherSpeakersClipped(t *testing.T) {
	timeline := [][]float32{
		{0.5, -0.5, 0.9, 0},
		{0.75, -0.75, 0.5, 0.25},
		{0.5, -0.5, -0.25, 0.5},
	}
	for k, want := range [][]float32{
		{1, -1, 0.25, 0.75}, // 1.25 and -1.25 clipped
		{1, -1, 0.65, 0.5},  // 1.0 and -1.0 exactly; 0.9 - 0.25
		{1, -1, 1, 0.25},    // 1.25, -1.25, 1.4 clipped
	} {
		got := rest(timeline, k)
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-6 {
				t.Errorf("rest of speaker %d: %v, want %v", k+1, got, want)
				break
			}
		}
	}
}

// ONNX element and attribute types, and the versions, of the graphs below.
const (
	onnxFloat16   = 10
	attrInt       = 2
	attrInts      = 7
	onnxOpset     = 13
	onnxIRVersion = 8
)

// graph builds a model graph node by node: the stand-ins of published
// turn-taking models, with their input and output names, types and shapes.
type graph struct {
	nodes, inits, inputs, outputs []protoMessage
}

func (g *graph) op(op string, inputs []string, output string, attrs ...protoMessage) {
	g.nodes = append(g.nodes, node(op, inputs, []string{output}, attrs...))
}

func (g *graph) input(name string, elem int, dims ...int) {
	g.inputs = append(g.inputs, valueInfo(name, elem, dims...))
}

func (g *graph) output(name string, elem int, dims ...int) {
	g.outputs = append(g.outputs, valueInfo(name, elem, dims...))
}

// ints adds an int64 initializer of the given dimensions.
func (g *graph) ints(name string, dims []int, v ...int64) {
	raw := make([]byte, 0, 8*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(x))
	}
	g.init(name, onnxInt64, dims, raw)
}

// floats adds a float32 initializer of the given dimensions.
func (g *graph) floats(name string, dims []int, v ...float32) {
	raw := make([]byte, 0, 4*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
	}
	g.init(name, onnxFloat, dims, raw)
}

func (g *graph) init(name string, elem int, dims []int, raw []byte) {
	var t protoMessage
	for _, d := range dims {
		t = t.varint(1, uint64(d))
	}
	g.inits = append(g.inits, t.varint(2, uint64(elem)).bytes(8, []byte(name)).bytes(9, raw))
}

// write encodes the model and writes it to a temporary file.
func (g *graph) write(t *testing.T, name string) string {
	t.Helper()
	var b protoMessage
	for _, n := range g.nodes {
		b = b.bytes(1, n)
	}
	b = b.bytes(2, []byte(name))
	for _, x := range g.inits {
		b = b.bytes(5, x)
	}
	for _, x := range g.inputs {
		b = b.bytes(11, x)
	}
	for _, x := range g.outputs {
		b = b.bytes(12, x)
	}
	model := protoMessage(nil).varint(1, onnxIRVersion).bytes(2, []byte("floorbench-test")).bytes(7, b).
		bytes(8, protoMessage(nil).bytes(1, nil).varint(2, onnxOpset))
	path := filepath.Join(t.TempDir(), name+".onnx")
	if err := os.WriteFile(path, model, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func attrI(name string, v int) protoMessage {
	return protoMessage(nil).bytes(1, []byte(name)).varint(3, uint64(v)).varint(20, attrInt)
}

func attrIs(name string, v ...int) protoMessage {
	a := protoMessage(nil).bytes(1, []byte(name))
	for _, x := range v {
		a = a.varint(8, uint64(int64(x)))
	}
	return a.varint(20, attrInts)
}

// frameMeans adds out = mean |in| over groups of size samples: in reshaped
// to shape (ending in size), reduced over its last axis, the axis kept
// where keep is 1.
func (g *graph) frameMeans(in, out string, shape []int64, keep int) {
	g.ints(out+"_shape", []int{len(shape)}, shape...)
	g.op("Reshape", []string{in, out + "_shape"}, out+"_frames")
	g.op("Abs", []string{out + "_frames"}, out+"_abs")
	g.op("ReduceMean", []string{out + "_abs"}, out, attrIs("axes", len(shape)-1), attrI("keepdims", keep))
}
