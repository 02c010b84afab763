package detect

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
)

func hashOf(t *testing.T, s *System, rt Runtime) string {
	t.Helper()
	h, err := s.Hash(rt)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func parse(t *testing.T, spec string) *System {
	t.Helper()
	s, err := ParseSystem([]byte(spec), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A system's hash is its behaviour: defaults written out or left implicit,
// its label and where its model lies do not change it; a parameter does.
func TestSystemHashIdentifiesBehaviour(t *testing.T) {
	rt := Runtime{Tools: "/nonexistent/tools"}
	builtin, _ := Builtin("silero")
	base := hashOf(t, builtin, rt)
	same := map[string]string{
		"spec without params": "family: silero\n",
		"defaults written":    "family: silero\nname: my-silero\nparams: {speech_threshold: 0.5, frame_rate_hz: 100, int_gate: true}\n",
		"model elsewhere":     "family: silero\nmodel: {path: /models/v5.onnx, sha256: " + SileroModelSHA256 + "}\n",
	}
	for name, spec := range same {
		if h := hashOf(t, parse(t, spec), rt); h != base {
			t.Errorf("%s: hash %s, want the built-in's %s", name, h, base)
		}
	}
	withParam, _ := Builtin("silero")
	if err := withParam.SetParam("int_gate_lookback_s", "1.5"); err != nil {
		t.Fatal(err)
	}
	if hashOf(t, withParam, rt) == base {
		t.Error("int_gate_lookback_s=1.5 has the default system's hash")
	}
}

// Every built-in family scores differently, so each has its own hash; for
// onnx the floor rule is part of the identity.
func TestFamiliesAndFloorRulesHaveTheirOwnHashes(t *testing.T) {
	rt := Runtime{Tools: "/nonexistent/tools"}
	seen := map[string]string{}
	add := func(label string, s *System) {
		h := hashOf(t, s, rt)
		if prev, ok := seen[h]; ok {
			t.Errorf("%s and %s share the hash %s", label, prev, h)
		}
		seen[h] = label
	}
	for _, f := range Families() {
		if f.Name == "onnx" || f.Name == "external" || f.Name == RealtimeVADFamily {
			continue // they need a spec file, input files or an endpoint
		}
		s, _ := Builtin(f.Name)
		add(f.Name, s)
	}
	for _, rule := range []string{RuleGate, RuleEndpointer} {
		s, err := LoadSystem("testdata/silero-onnx.yaml", limits.Default())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetParam("floor_rule", rule); err != nil {
			t.Fatal(err)
		}
		add("onnx "+rule, s)
	}
}

func TestSetParamChecksNameAndKind(t *testing.T) {
	s, _ := Builtin("webrtcvad")
	for _, tc := range []struct{ name, value, want string }{
		{"modes", "3", `no parameter "modes"`},
		{"mode", "3.5", "want an integer"},
		{"int_gate", "maybe", "want true or false"},
		{"int_gate_lookback_s", "NaN", "finite number"},
		{"eot_ramp_s", "1", `no parameter "eot_ramp_s"`}, // a gate has no silence timeout
	} {
		if err := s.SetParam(tc.name, tc.value); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: got %v, want %q", tc.name, tc.value, err, tc.want)
		}
	}
	if err := s.SetParam("mode", "7"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(Runtime{}); err == nil || !strings.Contains(err.Error(), "mode must be 0, 1, 2 or 3") {
		t.Errorf("mode 7: got %v", err)
	}
}

func TestSpecRoundTripsThroughYAML(t *testing.T) {
	rt := Runtime{Tools: "/tools"}
	for _, path := range []string{"testdata/silero-onnx.yaml"} {
		s, err := LoadSystem(path, limits.Default())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetParam("int_gate", "false"); err != nil {
			t.Fatal(err)
		}
		if err := s.SetParam("floor_rule", RuleEndpointer); err != nil {
			t.Fatal(err)
		}
		if err := s.SetParam("floor_rule", "sometimes"); err == nil || !strings.Contains(err.Error(), "want one of [gate endpointer]") {
			t.Errorf("floor_rule=sometimes: got %v", err)
		}
		data, err := s.SpecYAML()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseSystem(data, "testdata")
		if err != nil {
			t.Fatalf("%s: written spec does not parse: %v\n%s", path, err, data)
		}
		if a, b := hashOf(t, s, rt), hashOf(t, back, rt); a != b {
			t.Fatalf("%s: hash %s after writing and reading, %s before\n%s", path, b, a, data)
		}
	}
}

// FuzzParseSystem feeds the spec parser arbitrary bytes: it must not panic,
// and every spec it accepts must survive being written out and read back
// with the same identity.
func FuzzParseSystem(f *testing.F) {
	for _, seed := range []string{
		"family: rms\nparams: {window_s: 0.03, hangover_s: 0}\n",
		"family: webrtcvad\nname: w\nparams: {mode: 3, frame_ms: 30, int_gate: false}\n",
		"family: rms-endpointer\nparams: {eot_ramp_s: 1, int_gate_lookback_s: 0}\n",
		"family: silero\nmodel: {path: m.onnx, sha256: " + SileroModelSHA256 + "}\n",
		"family: external\nparams: {dir: out}\n",
	} {
		f.Add([]byte(seed))
	}
	if data, err := os.ReadFile("testdata/silero-onnx.yaml"); err == nil {
		f.Add(data)
	}
	for _, spec := range []string{vapSpec, maaiSpec, turn1MiniSpec, smartTurnSpec, endpointer24kSpec, wavlmSpec} {
		f.Add([]byte(strings.ReplaceAll(spec, "MODEL", "m.onnx, sha256: "+SileroModelSHA256)))
	}
	rt := Runtime{Tools: "/tools"}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSystem(data, "/specs")
		if err != nil {
			return
		}
		first, err := s.Normalised(rt)
		if err != nil {
			return // needs files: an onnx model without a pinned hash, external inputs
		}
		out, err := s.SpecYAML()
		if err != nil {
			t.Fatalf("accepted spec cannot be written: %v", err)
		}
		back, err := ParseSystem(out, "/specs")
		if err != nil {
			t.Fatalf("written spec does not parse: %v\n%s", err, out)
		}
		second, err := back.Normalised(rt)
		if err != nil || string(first) != string(second) {
			t.Fatalf("identity changed when written and read back (%v):\n%s\n%s", err, first, second)
		}
	})
}

// writeProbs writes the scores of one conversation as probability files.
func writeProbs(t *testing.T, dir, id string, s *Scores) {
	t.Helper()
	for i, tracks := range [][][]float64{s.EOT, s.INT} {
		task := []floor.Task{floor.TaskEOT, floor.TaskINT}[i]
		f, err := os.Create(filepath.Join(dir, ProbsFileNames[i]))
		if err != nil {
			t.Fatal(err)
		}
		p := &score.ProbsFile{Task: task, FrameRate: s.FrameRate, Conversations: []score.ConversationProbs{{ID: id, Speakers: tracks}}}
		if err := score.WriteProbs(f, p); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
}

func TestExternalPassesFilesThroughAndChecksTheirGrid(t *testing.T) {
	c, _ := dialogue(t)
	want := detect(t, openSystem(t, "rms", Runtime{}), c)
	dir := t.TempDir()
	writeProbs(t, dir, c.ID, want)
	s := parse(t, "family: external\nparams: {dir: "+dir+"}\n")
	d, err := s.Open(Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	got := detect(t, d, c)
	for k := range want.EOT {
		if firstDifference(want.EOT[k], got.EOT[k]) >= 0 || firstDifference(want.INT[k], got.INT[k]) >= 0 {
			t.Fatalf("speaker %d: external tracks differ from the files' tracks", k+1)
		}
	}
	longer := *c
	longer.Duration += 1
	if _, err := d.Detect(context.Background(), &longer); err == nil || !strings.Contains(err.Error(), "frames, expected") {
		t.Errorf("a conversation longer than the files' tracks: got %v", err)
	}
	other := *c
	other.ID = "elsewhere"
	if _, err := d.Detect(context.Background(), &other); err == nil || !strings.Contains(err.Error(), `"elsewhere" is not in probs-eot.json`) {
		t.Errorf("a conversation the files lack: got %v", err)
	}
	if h, err := s.Hash(Runtime{}); err != nil || len(h) != 32 {
		t.Errorf("external hash %q, %v", h, err)
	}
}

// A family's code version is part of its systems' hashes: bumping it
// changes the hash of that family's systems (so their tracks are inferred
// again) and of no other family's.
func TestFamilyVersionInvalidatesOnlyItsSystems(t *testing.T) {
	rt := Runtime{Tools: "/nonexistent/tools"}
	rms, _ := Builtin("rms")
	webrtc, _ := Builtin("webrtcvad")
	rmsBefore, webrtcBefore := hashOf(t, rms, rt), hashOf(t, webrtc, rt)
	rms.family.Version++
	if hashOf(t, rms, rt) == rmsBefore {
		t.Error("rms at the next family version keeps its hash")
	}
	if hashOf(t, webrtc, rt) != webrtcBefore {
		t.Error("webrtcvad's hash changed with rms's version")
	}
	for _, f := range Families() {
		if f.Version < 1 {
			t.Errorf("family %s has no version", f.Name)
		}
	}
}
