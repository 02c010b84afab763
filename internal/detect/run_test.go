package detect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
)

func TestProbsFilesRoundTripThroughTheProbabilityFormat(t *testing.T) {
	a, _ := dialogue(t)
	b, _ := conversation(t, "short", 3, 3.3, []utterance{{2, 0.5, "en-us", "Over to you."}})
	convs := []*Conversation{a, b}
	d := openSystem(t, "rms", Runtime{})
	src := Source{Count: 2, Load: func(_ context.Context, i int) (*Conversation, error) { return convs[i], nil }}
	done := 0
	eot, intr, err := ProbsFiles(context.Background(), d, src, func() { done++ })
	if err != nil {
		t.Fatal(err)
	}
	if done != 2 {
		t.Errorf("progress called %d times for 2 conversations", done)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteProbsFiles(dir, eot, intr); err != nil {
		t.Fatal(err)
	}
	for i, want := range []*score.ProbsFile{eot, intr} {
		got, err := score.ReadProbs(filepath.Join(dir, ProbsFileNames[i]), limits.Default())
		if err != nil {
			t.Fatal(err)
		}
		if got.Task != want.Task || got.FrameRate != 100 || len(got.Conversations) != 2 {
			t.Fatalf("%s: task %s, %g Hz, %d conversations", ProbsFileNames[i], got.Task, got.FrameRate, len(got.Conversations))
		}
		for c, conv := range got.Conversations {
			if len(conv.Speakers) != len(convs[c].Channels) || len(conv.Speakers[0]) != score.FrameCount(convs[c].Duration, 100) {
				t.Fatalf("%s %s: %d speakers of %d frames", ProbsFileNames[i], conv.ID, len(conv.Speakers), len(conv.Speakers[0]))
			}
			for k := range conv.Speakers {
				if firstDifference(conv.Speakers[k], want.Conversations[c].Speakers[k]) >= 0 {
					t.Fatalf("%s %s speaker_%d: read back differently", ProbsFileNames[i], conv.ID, k+1)
				}
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("output folder holds %d entries, want the 2 probability files", len(entries))
	}
	for _, e := range entries {
		if info, err := e.Info(); err != nil || info.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want 0644", e.Name(), info.Mode().Perm())
		}
	}
}

func TestFailedRunLeavesNoOutput(t *testing.T) {
	a, _ := dialogue(t)
	broken := errors.New("speaker_2.wav: truncated")
	src := Source{Count: 2, Load: func(_ context.Context, i int) (*Conversation, error) {
		if i == 1 {
			return nil, broken
		}
		return a, nil
	}}
	if _, _, err := ProbsFiles(context.Background(), openSystem(t, "rms", Runtime{}), src, nil); !errors.Is(err, broken) {
		t.Fatalf("got %v, want the load error", err)
	}
	// A folder that cannot take the files: nothing, not even a temporary
	// file, stays behind.
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ProbsFileNames[1]), 0o755); err != nil {
		t.Fatal(err)
	}
	p := &score.ProbsFile{Task: "eot", FrameRate: 100}
	q := &score.ProbsFile{Task: "int", FrameRate: 100}
	if err := WriteProbsFiles(dir, p, q); err == nil {
		t.Fatal("writing over a folder succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != ProbsFileNames[1] {
		t.Errorf("left behind: %v", entries)
	}
}
