package detect

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
)

// otherValue is a value of parameter p other than v.
func otherValue(t *testing.T, p Param, v any) any {
	t.Helper()
	switch p.Kind {
	case KindFloat:
		return v.(float64) + 0.125
	case KindInt:
		if p.Name == "frame_ms" {
			return 30
		}
		return v.(int) ^ 1
	case KindBool:
		return !v.(bool)
	case KindString:
		return p.Choices[(slices.Index(p.Choices, v.(string))+1)%len(p.Choices)]
	}
	t.Fatalf("parameter %s: no other value of kind %s", p.Name, p.Kind)
	return nil
}

// systemOf is a built-in system, or for onnx the Silero spec of testdata.
func systemOf(t *testing.T, family string) *System {
	t.Helper()
	var s *System
	var err error
	if family == "onnx" {
		s, err = LoadSystem("testdata/silero-onnx.yaml", limits.Default())
	} else {
		s, err = Builtin(family)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Every family that scores audio declares each parameter's stage, once:
// changing a floor parameter changes the system but not its model stage
// (the stored model output is reused), changing a model parameter changes
// both (the model runs again).
func TestEachParameterBelongsToOneStage(t *testing.T) {
	rt := Runtime{Tools: t.TempDir()}
	for _, f := range Families() {
		if f.ModelStage == nil {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			base := systemOf(t, f.Name)
			base.model.SHA256 = strings.Repeat("a", 64) // hashed without reading the file
			systemHash, modelHash := hashes(t, base, rt)
			for _, p := range f.Params {
				s := systemOf(t, f.Name)
				s.model.SHA256 = base.model.SHA256
				s.values[p.Name] = otherValue(t, p, s.values[p.Name])
				sh, mh := hashes(t, s, rt)
				if sh == systemHash {
					t.Errorf("changing %s leaves the system's hash alone", p.Name)
				}
				switch p.Stage {
				case StageModel:
					if mh == modelHash {
						t.Errorf("model parameter %s: changing it leaves the model stage's hash alone", p.Name)
					}
				case StageFloor:
					if mh != modelHash {
						t.Errorf("floor parameter %s: changing it changes the model stage's hash", p.Name)
					}
				default:
					t.Errorf("parameter %s declares no stage", p.Name)
				}
			}
			s := systemOf(t, f.Name)
			s.model.SHA256 = strings.Repeat("b", 64)
			if _, mh := hashes(t, s, rt); f.Model && mh == modelHash {
				t.Error("another model file leaves the model stage's hash alone")
			}
		})
	}
}

func hashes(t *testing.T, s *System, rt Runtime) (system, model string) {
	t.Helper()
	system, err := s.Hash(rt)
	if err != nil {
		t.Fatal(err)
	}
	if model, err = s.ModelHash(rt); err != nil || model == "" {
		t.Fatalf("model hash %q: %v", model, err)
	}
	return system, model
}

// A gate and an endpointer over the same voice activity share one model
// stage; an onnx spec of a model is a model stage of its own, and the
// external family has none.
func TestFamiliesOfOneModelShareItsStage(t *testing.T) {
	rt := Runtime{Tools: t.TempDir()}
	model := func(family string) string {
		s := systemOf(t, family)
		s.model.SHA256 = strings.Repeat("a", 64)
		_, h := hashes(t, s, rt)
		return h
	}
	for _, pair := range [][2]string{{"rms", "rms-endpointer"}, {"webrtcvad", "webrtcvad-endpointer"}, {"silero", "silero-endpointer"}} {
		if model(pair[0]) != model(pair[1]) {
			t.Errorf("%s and %s have different model stages", pair[0], pair[1])
		}
	}
	if model("silero") == model("onnx") || model("rms") == model("webrtcvad") {
		t.Error("different models share a model stage's hash")
	}
	ext, err := Builtin("external")
	if err != nil {
		t.Fatal(err)
	}
	if h, err := ext.ModelHash(rt); h != "" || err != nil || ext.HasModelStage() {
		t.Errorf("external: model hash %q (%v)", h, err)
	}
}

// The floor stage of any system over a model output another system of the
// same model made gives that system's own Detect scores, bit for bit: the
// gate and the endpointer read Silero's output once, and a frame rate of
// the floor stage places the same output on its own grid.
func TestSystemsOfOneModelMapItsOutput(t *testing.T) {
	c, _ := dialogue(t)
	for _, tc := range []struct{ made, mapped, fps string }{
		{"rms", "rms-endpointer", "50"},
		{"webrtcvad-endpointer", "webrtcvad", "100"},
		{"silero", "silero-endpointer", "31.25"},
		{"silero-endpointer", "silero", "100"},
	} {
		t.Run(tc.made+"->"+tc.mapped, func(t *testing.T) {
			rt := runtimeFor(t, tc.made)
			maker := systemOf(t, tc.made)
			m, err := maker.OpenModel(rt)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			out, err := m.Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			s := systemOf(t, tc.mapped)
			if err := s.SetParam("frame_rate_hz", tc.fps); err != nil {
				t.Fatal(err)
			}
			got, err := s.MapOutput(roundTrip(t, out))
			if err != nil {
				t.Fatal(err)
			}
			d, err := s.Open(rt)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			requireSameTracks(t, detect(t, d, c), got)
		})
	}
}

func requireSameTracks(t *testing.T, want, got *Scores) {
	t.Helper()
	if want.FrameRate != got.FrameRate {
		t.Fatalf("frame rate %v, want %v", got.FrameRate, want.FrameRate)
	}
	for _, tr := range []struct {
		name      string
		want, got [][]float64
	}{{"eot", want.EOT, got.EOT}, {"int", want.INT, got.INT}} {
		if len(tr.got) != len(tr.want) {
			t.Fatalf("%s: %d speakers, want %d", tr.name, len(tr.got), len(tr.want))
		}
		for k := range tr.want {
			if i := firstDifference(tr.want[k], tr.got[k]); i >= 0 {
				t.Fatalf("%s speaker %d differs from frame %d", tr.name, k+1, i)
			}
		}
	}
}

// roundTrip writes and reads back a model output, as the store keeps it.
func roundTrip(t *testing.T, o *ModelOutput) *ModelOutput {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteModelOutput(&buf, o); err != nil {
		t.Fatal(err)
	}
	back, err := ReadModelOutput(&buf, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// A floor stage refuses an output of other roles than its model's.
func TestMapOutputRefusesAnotherModelsOutput(t *testing.T) {
	s := systemOf(t, "silero")
	out := &ModelOutput{Duration: 0.1, Hop: 160, Roles: []string{RoleEOT, RoleINT},
		Values: [][][]float32{{make([]float32, 10)}, {make([]float32, 10)}}}
	if _, err := s.MapOutput(out); err == nil || !strings.Contains(err.Error(), "reads") {
		t.Errorf("got %v, want an error naming the outputs the system reads", err)
	}
}

// sampleModelOutput is a small output of two roles and three speakers.
func sampleModelOutput() *ModelOutput {
	o := &ModelOutput{Duration: 0.33, Hop: 320, Roles: []string{RoleEOT, RoleINT}}
	for t := range 2 {
		var out [][]float32
		for k := range 3 {
			track := make([]float32, 16)
			for j := range track {
				track[j] = float32(math.Mod(float64(j*7+k*3+t), 11) / 10)
			}
			out = append(out, track)
		}
		o.Values = append(o.Values, out)
	}
	return o
}

func TestModelOutputRoundTrips(t *testing.T) {
	o := sampleModelOutput()
	back := roundTrip(t, o)
	if back.Duration != o.Duration || back.Hop != o.Hop || !slices.Equal(back.Roles, o.Roles) {
		t.Fatalf("header %+v, want %+v", back, o)
	}
	for tt := range o.Values {
		for k := range o.Values[tt] {
			if !slices.Equal(back.Values[tt][k], o.Values[tt][k]) {
				t.Errorf("output %d speaker %d differs", tt, k)
			}
		}
	}
}

// What is not a whole model output is one error naming what is wrong.
func TestReadModelOutputRefusesWhatIsNotWhole(t *testing.T) {
	var good bytes.Buffer
	if err := WriteModelOutput(&good, sampleModelOutput()); err != nil {
		t.Fatal(err)
	}
	header, _, _ := bytes.Cut(good.Bytes(), []byte("\n"))
	body := good.Bytes()[len(header)+1:]
	nan := slices.Clone(good.Bytes())
	copy(nan[len(header)+1:], []byte{0, 0, 0xc0, 0x7f})
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"empty", "header", nil},
		{"truncated", "speaker 3", good.Bytes()[:good.Len()-3]},
		{"extra bytes", "after the last value", append(slices.Clone(good.Bytes()), 0)},
		{"unknown field", "unknown field", append([]byte(`{"schema":"floorbench-model-output","version":1,"extra":1}`+"\n"), body...)},
		{"other schema", "schema", append(bytes.Replace(header, []byte("floorbench-model-output"), []byte("other"), 1), append([]byte("\n"), body...)...)},
		{"wrong count", "values 17", append(bytes.Replace(header, []byte(`"values":16`), []byte(`"values":17`), 1), append([]byte("\n"), body...)...)},
		{"no speakers", "speakers 0", append(bytes.Replace(header, []byte(`"speakers":3`), []byte(`"speakers":0`), 1), append([]byte("\n"), body...)...)},
		{"NaN", "outside [0, 1]", nan},
		{"long header", "longer than", bytes.Repeat([]byte(" "), 5000)},
		{"header only", "speaker 1", good.Bytes()[:len(header)+1]},
	} {
		_, err := ReadModelOutput(bytes.NewReader(tc.data), limits.Default())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// FuzzReadModelOutput: any bytes either decode into a whole output that
// writes back to the same bytes, or are one error.
func FuzzReadModelOutput(f *testing.F) {
	var good bytes.Buffer
	if err := WriteModelOutput(&good, sampleModelOutput()); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add([]byte(`{"schema":"floorbench-model-output","version":1,"duration_s":0.02,"hop":320,"roles":["activity"],"speakers":1,"values":1}` + "\n\x00\x00\x80\x3f"))
	f.Add([]byte("{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := ReadModelOutput(bytes.NewReader(data), limits.Default())
		if err != nil {
			return
		}
		var back bytes.Buffer
		if err := WriteModelOutput(&back, o); err != nil {
			t.Fatalf("a decoded output does not write: %v", err)
		}
		again, err := ReadModelOutput(&back, limits.Default())
		if err != nil || again.Duration != o.Duration || again.length() != o.length() {
			t.Fatalf("a decoded output does not read back: %v", err)
		}
	})
}
