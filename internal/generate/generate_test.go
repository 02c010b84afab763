package generate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/synth"
)

func TestGenerateRefusesBadInput(t *testing.T) {
	e := engines(t)
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "notes.txt"), []byte("mine"), 0o644)
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"unknown preset", Options{Preset: "huge", Out: t.TempDir()}, `unknown preset "huge"`},
		{"non-empty out", Options{Preset: "tiny", Out: full}, "is not empty (use --force"},
		{"force on other files", Options{Preset: "tiny", Out: full, Force: true}, "notes.txt is not part of a floorbench corpus"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.o.Engines, c.o.Jobs = e, 1
			_, err := Corpus(context.Background(), c.o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(full, "notes.txt")); string(b) != "mine" {
		t.Fatal("a refused generation touched the folder")
	}
}

func TestGenerateWithoutTTSProgramsSaysWhatToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	out := filepath.Join(t.TempDir(), "c")
	_, err := Corpus(context.Background(), Options{Preset: "tiny", Out: out, Jobs: 1})
	if !errors.Is(err, synth.ErrMissingProgram) || !strings.Contains(err.Error(), "scripts/setup.sh speech") {
		t.Fatalf("err = %v", err)
	}
	if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
		t.Fatal("output folder created although nothing could be generated")
	}
}

// failingTTS is the real engine set with one voice's program failing, as
// a crash or a kill of espeak-ng mid-corpus would.
type failingTTS struct {
	synth.TTS
	fail string
}

func (f failingTTS) Synthesize(ctx context.Context, text string, v synth.Voice) ([]float32, error) {
	if v.ID == f.fail {
		return nil, errors.New("espeak-ng killed")
	}
	return f.TTS.Synthesize(ctx, text, v)
}

func TestInterruptedGenerationLeavesNothingCheckAccepts(t *testing.T) {
	e := engines(t)
	tinyPreset, _ := synth.PresetByName("tiny", 1)
	// Fail on a voice of the third conversation: generation stops mid-way.
	last := tinyPreset.Conversations[2]
	cast := synth.CastVoices(last, synth.StreamFor(1, last.ID, synth.StageVoices))
	broken := map[string]synth.TTS{}
	for name, tts := range e {
		broken[name] = failingTTS{tts, cast.Voices[0].ID}
	}
	out := filepath.Join(t.TempDir(), "c")
	_, err := Corpus(context.Background(), Options{Preset: "tiny", Seed: 1, Out: out, Jobs: 1, Engines: broken})
	if err == nil || !strings.Contains(err.Error(), "espeak-ng killed") {
		t.Fatalf("err = %v", err)
	}
	if _, err := corpus.Check(out, limits.Default()); err == nil || !strings.Contains(err.Error(), "no corpus.json") {
		t.Fatalf("check of an interrupted corpus: %v", err)
	}
	entries, _ := os.ReadDir(out)
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), corpus.PartialPrefix) {
			t.Fatalf("partial folder %s left behind", en.Name())
		}
	}
	// Without --force the leftovers are protected; with it they are replaced.
	if _, err := Corpus(context.Background(), Options{Preset: "tiny", Seed: 1, Out: out, Jobs: 2, Engines: e}); err == nil {
		t.Fatal("regenerated into a non-empty folder without --force")
	}
	if _, err := Corpus(context.Background(), Options{Preset: "tiny", Seed: 1, Out: out, Jobs: 2, Force: true, Engines: e}); err != nil {
		t.Fatal(err)
	}
	if p := checkProblems(t, out); p != "" {
		t.Fatalf("regenerated corpus: %s", p)
	}
}
