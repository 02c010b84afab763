package detect

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
)

// probeOneTask is the probe model (onnxfixture_test.go) with one scoring
// output: ROLE is eot (its sigmoid state) or int (the rest channel).
var probeOneTask = probeSpec[:strings.Index(probeSpec, "  scores:\n")] + "  scores:\n    - SCORE\n"

// An onnx model of an eot output alone (Smart Turn, Turn-1-Mini) is an
// EOT-only system: it scores EOT, its detector gives no INT track at all
// (not a copy, not zeros), and its stream and its model output mapped give
// the same. The same holds for an int output alone.
func TestOnnxOfOneScoreRoleScoresOneTask(t *testing.T) {
	model := writeProbeModel(t, 480)
	for _, c := range []struct {
		score string
		task  floor.Task
	}{
		{"{output: count, index: 0, role: eot, sigmoid: true}", floor.TaskEOT},
		{"{output: scores, index: 1, role: int}", floor.TaskINT},
	} {
		t.Run(string(c.task), func(t *testing.T) {
			spec := strings.NewReplacer("MODEL", model, "SCORE", c.score).Replace(probeOneTask)
			s, err := ParseSystem([]byte(spec), "")
			if err != nil {
				t.Fatal(err)
			}
			if got, err := s.Tasks(Runtime{}); err != nil || !slices.Equal(got, []floor.Task{c.task}) {
				t.Fatalf("tasks %v (%v), want only %s", got, err, c.task)
			}
			rt := onnxRuntime(t)
			d, err := s.Open(rt)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			conv := silentConversation("probe", 2, 1.5)
			got := detect(t, d, conv)
			if other := floor.Tasks[1-slices.Index(floor.Tasks, c.task)]; got.Tracks(other) != nil {
				t.Errorf("%s tracks %v of a %s-only system", other, got.Tracks(other), c.task)
			}
			tracks := got.Tracks(c.task)
			if len(tracks) != 2 || len(tracks[0]) != 150 {
				t.Fatalf("%s tracks: %d speakers", c.task, len(tracks))
			}
			if c.task == floor.TaskEOT {
				// The state gains 0.5 a step: frame i is sigmoid(0.5(i+1)).
				for i, v := range tracks[1] {
					if want := 1 / (1 + math.Exp(-0.5*float64(i+1))); math.Abs(v-want) > 1e-6 {
						t.Fatalf("frame %d: EOT %v, want %v", i, v, want)
					}
				}
			}
			st, err := s.OpenStream(rt, 2)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			frames, err := st.Push(conv.Channels)
			if err != nil || len(frames) != 150 {
				t.Fatalf("stream: %d frames, %v", len(frames), err)
			}
			for i, f := range frames {
				if (f.EOT == nil) != (got.EOT == nil) || (f.INT == nil) != (got.INT == nil) || f.EOT != nil && f.EOT[1] != got.EOT[1][i] || f.INT != nil && f.INT[1] != got.INT[1][i] {
					t.Fatalf("stream frame %d: %+v, unlike the detector's", i, f)
				}
			}
			m, err := s.OpenModel(rt)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			out, err := m.Run(context.Background(), conv)
			if err != nil {
				t.Fatal(err)
			}
			mapped, err := s.MapOutput(out)
			if err != nil {
				t.Fatal(err)
			}
			if (mapped.EOT == nil) != (got.EOT == nil) || (mapped.INT == nil) != (got.INT == nil) {
				t.Errorf("mapped output has EOT %t INT %t, the detector EOT %t INT %t",
					mapped.EOT != nil, mapped.INT != nil, got.EOT != nil, got.INT != nil)
			}
		})
	}
}

// silentConversation is a conversation of silent channels.
func silentConversation(id string, speakers int, duration float64) *Conversation {
	c := &Conversation{ID: id, SampleRate: SampleRate, Duration: duration}
	for range speakers {
		c.Channels = append(c.Channels, make([]float32, int(duration*SampleRate)))
	}
	return c
}

// A spec's scores and tasks fields are checked, one error naming the field.
func TestTaskDeclarationsAreChecked(t *testing.T) {
	model := filepath.Join(t.TempDir(), "m.onnx")
	onnx := func(score string) string {
		return strings.NewReplacer("MODEL", model, "    - SCORE\n", score).Replace(probeOneTask)
	}
	eotOnly := "    - {output: count, role: eot}\n"
	for _, c := range []struct {
		name, spec, want string
	}{
		{"no scoring output", onnx(""), "onnx: scores: no scoring output; give one with role activity (both tasks), eot or int"},
		{"claim beyond the roles", onnx(eotOnly) + "tasks: [eot, int]\n", "tasks [eot int]: family onnx scores [eot], from the roles of onnx.scores"},
		{"claim short of the mapping", "family: rms\ntasks: [int]\n", "tasks [int]: family rms scores [eot int], from its voice activity"},
		{"unknown task", "family: rms\ntasks: [eot, turn]\n", `tasks[1] "turn": want eot or int`},
		{"task twice", "family: rms\ntasks: [eot, eot]\n", "tasks[1]: eot given twice"},
		{"empty claim", "family: rms\ntasks: []\n", "tasks: empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSystem([]byte(c.spec), "")
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v, want one line with %q", err, c.want)
			}
		})
	}
	s := parse(t, onnx(eotOnly)+"tasks: [eot]\n")
	back, err := s.SpecYAML()
	if err != nil || !strings.Contains(string(back), "tasks:\n    - eot\n") {
		t.Errorf("a claim written back: %v\n%s", err, back)
	}
}

// An external system scores both tasks unless its spec claims one: a
// folder of probs-eot.json alone is an error naming the missing file (a
// task is never dropped because its file went missing), and with tasks:
// [eot] it is EOT-only, with no INT track, and only that file enters its
// identity.
func TestExternalScoresTheTasksOfItsFiles(t *testing.T) {
	c := silentConversation("c1", 2, 1)
	tracks := [][]float64{make([]float64, 100), make([]float64, 100)}
	for i := range tracks[0] {
		tracks[0][i], tracks[1][i] = float64(i)/100, 1-float64(i)/100
	}
	full := &Scores{FrameRate: 100, EOT: tracks, INT: tracks}
	both, eotOnly := t.TempDir(), t.TempDir()
	writeProbs(t, both, c.ID, full)
	writeProbs(t, eotOnly, c.ID, full)
	if err := os.Remove(filepath.Join(eotOnly, ProbsFileNames[1])); err != nil {
		t.Fatal(err)
	}
	unclaimed := parse(t, "family: external\nparams: {dir: "+eotOnly+"}\n")
	if _, err := unclaimed.Tasks(Runtime{}); err == nil || !strings.Contains(err.Error(), filepath.Join(eotOnly, ProbsFileNames[1])+" is not there") {
		t.Fatalf("a folder missing probs-int.json, no claim: %v; want the missing file named", err)
	}
	sBoth, sEOT := parse(t, "family: external\nparams: {dir: "+both+"}\n"), parse(t, "family: external\ntasks: [eot]\nparams: {dir: "+eotOnly+"}\n")
	if got, err := sEOT.Tasks(Runtime{}); err != nil || !slices.Equal(got, []floor.Task{floor.TaskEOT}) {
		t.Fatalf("tasks %v (%v), want [eot]", got, err)
	}
	if got, err := sBoth.Tasks(Runtime{}); err != nil || !slices.Equal(got, floor.Tasks) {
		t.Fatalf("tasks %v (%v), want both", got, err)
	}
	d, err := sEOT.Open(Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	got := detect(t, d, c)
	if got.INT != nil || firstDifference(got.EOT[0], tracks[0]) >= 0 || firstDifference(got.EOT[1], tracks[1]) >= 0 {
		t.Errorf("EOT-only external: INT %v, EOT differs %t", got.INT, firstDifference(got.EOT[0], tracks[0]) >= 0)
	}
	if files := sEOT.LocalFiles(Runtime{}); len(files) != 1 || files[ProbsFileNames[0]] == "" {
		t.Errorf("files to upload %v, want probs-eot.json alone", files)
	}
	// The same EOT file, with and without the INT one beside it: the
	// identities differ by the INT file, the EOT-only one's covers it
	// alone, and a claim of eot on the full folder is the EOT-only system.
	hBoth, _ := sBoth.Hash(Runtime{})
	hEOT, _ := sEOT.Hash(Runtime{})
	claimed := parse(t, "family: external\ntasks: [eot]\nparams: {dir: "+both+"}\n")
	hClaimed, err := claimed.Hash(Runtime{})
	if err != nil || hBoth == hEOT || hClaimed != hEOT {
		t.Errorf("hashes: both %s, EOT-only %s, EOT claimed on both files %s (%v)", hBoth, hEOT, hClaimed, err)
	}
	n, err := sEOT.Normalised(Runtime{})
	if err != nil || strings.Contains(string(n), "probs-int.json") {
		t.Errorf("EOT-only identity %s (%v) names probs-int.json", n, err)
	}

	overclaim := parse(t, "family: external\ntasks: [eot, int]\nparams: {dir: "+eotOnly+"}\n")
	for name, err := range map[string]error{"hash": second(overclaim.Hash(Runtime{})), "open": second(overclaim.Open(Runtime{}))} {
		if err == nil || !strings.Contains(err.Error(), filepath.Join(eotOnly, ProbsFileNames[1])+" is not there") {
			t.Errorf("%s of an external system claiming a missing task: %v", name, err)
		}
	}
	emptyDir := t.TempDir()
	empty := parse(t, "family: external\nparams: {dir: "+emptyDir+"}\n")
	if _, err := empty.Hash(Runtime{}); err == nil || !strings.Contains(err.Error(), filepath.Join(emptyDir, ProbsFileNames[0])+" is not there") {
		t.Errorf("an external system of no file: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

// WriteProbsFiles writes the file of each task given, and removes the
// stale file of a task not given, so the folder reads back as the system.
func TestWriteProbsFilesOfOneTask(t *testing.T) {
	dir := t.TempDir()
	p := &score.ProbsFile{Task: floor.TaskEOT, FrameRate: 100}
	q := &score.ProbsFile{Task: floor.TaskINT, FrameRate: 100}
	if err := WriteProbsFiles(dir, p, q); err != nil {
		t.Fatal(err)
	}
	if err := WriteProbsFiles(dir, p, nil); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != ProbsFileNames[0] {
		t.Errorf("folder holds %v, want probs-eot.json alone", entries)
	}
}
