package activities

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
)

// eotOnlySpec is an onnx system of one eot output (Smart Turn's shape):
// MapFloor reads its stored model outputs and opens no model.
const eotOnlySpec = `family: onnx
model: {path: smart-turn.onnx}
params: {frame_rate_hz: 100}
onnx:
  sample_rate: 16000
  frame: 160
  hop: 160
  channel_layout: per-speaker
  audio: {name: audio, shape: [batch, frame]}
  scores: [{output: eot, role: eot}]
`

// MapFloor of an EOT-only system stores its EOT tracks and no INT track,
// resumes after them (the EOT track is its last task's), and refuses,
// without retrying, a system said to score both whose model gives EOT
// alone.
func TestMapFloorOfAnEOTOnlySystemStoresNoINTTrack(t *testing.T) {
	ctx := context.Background()
	a, rec, local := recording(t)
	dir := smallCorpus(t)
	plan, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	c, err := corpus.Open(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	ref := sweep.SystemRef{Name: "smart-turn", YAML: []byte(eotOnlySpec), Hash: "eot-only-hash", ModelHash: "eot-model-hash",
		NeedsModel: true, Tasks: []floor.Task{floor.TaskEOT}}
	for _, conv := range c.Manifest.Conversations {
		out := &detect.ModelOutput{Duration: conv.Duration, Hop: 160, Roles: []string{detect.RoleEOT}, Values: [][][]float32{make([][]float32, conv.Speakers)}}
		for k := range conv.Speakers {
			out.Values[0][k] = make([]float32, int(conv.Duration*16000)/160)
		}
		var buf bytes.Buffer
		if err := detect.WriteModelOutput(&buf, out); err != nil {
			t.Fatal(err)
		}
		if err := store.PutBytes(ctx, local, keys.ModelOutput(ref.ModelHash, plan.Hash, conv.ID), buf.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	both := ref
	both.Tasks, both.Hash = nil, "claims-both-hash"
	err = a.MapFloor(ctx, FloorInput{System: both, Corpus: plan, Conversations: plan.Conversations})
	assertBadInput(t, "a system said to score both tasks whose model scores EOT", err, "its detector gave no int tracks; the system scores [eot int]")

	rec.take()
	if err := a.MapFloor(ctx, FloorInput{System: ref, Corpus: plan, Conversations: plan.Conversations}); err != nil {
		t.Fatal(err)
	}
	for _, id := range plan.Conversations {
		for task, want := range map[floor.Task]bool{floor.TaskEOT: true, floor.TaskINT: false} {
			if got, err := store.Exists(ctx, local, keys.Track(ref.Hash, plan.Hash, id, task)); err != nil || got != want {
				t.Errorf("%s: %s track stored %t (%v), want %t", id, task, got, err, want)
			}
		}
	}
	var eotTracks []string
	for _, id := range plan.Conversations {
		eotTracks = append(eotTracks, keys.Track(ref.Hash, plan.Hash, id, floor.TaskEOT))
	}
	if puts := rec.take(); !slices.Equal(tracksIn(puts, ref, plan), eotTracks) {
		t.Errorf("stored %q; want one EOT track per conversation", puts)
	}
	if err := a.MapFloor(ctx, FloorInput{System: ref, Corpus: plan, Conversations: plan.Conversations}); err != nil || len(rec.take()) != 0 {
		t.Errorf("a second MapFloor stored tracks (%v); want nothing", err)
	}
}

// tracksIn are the keys of puts that are tracks, of either task, of
// system sys on plan's conversations.
func tracksIn(puts []string, sys sweep.SystemRef, plan CorpusPlan) []string {
	var all []string
	for _, id := range plan.Conversations {
		for _, task := range floor.Tasks {
			all = append(all, keys.Track(sys.Hash, plan.Hash, id, task))
		}
	}
	return slices.DeleteFunc(slices.Clone(puts), func(k string) bool { return !slices.Contains(all, k) })
}
