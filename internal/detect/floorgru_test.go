package detect

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
)

// floorgruSpec is the shipped spec of floorbench's own detector.
var floorgruSpec = filepath.Join("..", "..", "models", "floorgru", "floorgru.yaml")

// floorgruRecorded is what train/floorgru.py record wrote for one tiny
// conversation: PyTorch's probabilities of the trained model run over the
// whole channels at once (scripts/train.sh).
type floorgruRecorded struct {
	ConversationID string `json:"conversation_id"`
	Speakers       []struct {
		EOT []float64 `json:"eot"`
		INT []float64 `json:"int"`
	} `json:"speakers"`
}

// The shipped ONNX file, run through the onnx family as `floorbench
// detect` runs it (100 ms steps, the GRU state carried by the host,
// speaker versus rest, three speakers in one batch), gives on the tiny
// corpus the probabilities the training script recorded for the same
// conversation from PyTorch, where the whole channels went through the
// model at once: the export, the spec's framing, layout and columns, and
// the file's checksum all agree with what was trained.
func TestFloorgruRunsAsTrained(t *testing.T) {
	rt := onnxRuntime(t)
	data, err := os.ReadFile(filepath.Join("testdata", "floorgru-tiny.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec floorgruRecorded
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSystem(floorgruSpec, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if tasks, err := s.Tasks(rt); err != nil || !slices.Equal(tasks, floor.Tasks) {
		t.Fatalf("tasks %v (%v), want both", tasks, err)
	}
	tiny := tinyCorpus(t)
	var c *Conversation
	for _, entry := range tiny.Manifest.Conversations {
		if entry.ID == rec.ConversationID {
			channels, err := tiny.Channels16k(entry)
			if err != nil {
				t.Fatal(err)
			}
			c = &Conversation{ID: entry.ID, SampleRate: SampleRate, Duration: entry.Duration, Channels: channels}
		}
	}
	if c == nil || len(c.Channels) != len(rec.Speakers) || len(c.Channels) < 3 {
		t.Fatalf("the tiny corpus has no conversation %s of %d speakers", rec.ConversationID, len(rec.Speakers))
	}
	out, err := openModel(t, s, rt).Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if out.Hop != SampleRate/50 || !slices.Equal(out.Roles, []string{RoleEOT, RoleINT}) {
		t.Fatalf("hop %d, roles %v; want 320 (50 Hz), [eot int]", out.Hop, out.Roles)
	}
	// float32 through two runtimes' GRU kernels: 1e-4 is far below any
	// threshold's step and far above their rounding.
	const tol = 1e-4
	for k, sp := range rec.Speakers {
		for o, want := range [][]float64{sp.EOT, sp.INT} {
			if len(want) < 250 {
				t.Fatalf("speaker %d: %d recorded values, want a conversation's worth", k+1, len(want))
			}
			checkTrack(t, out.Roles[o], out.Values[o][k], len(want), tol, func(j int) float64 { return want[j] })
		}
	}
}
