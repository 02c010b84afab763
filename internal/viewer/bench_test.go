package viewer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/viewer"
)

// fullSizeBundle stores a bundle the size of a full MPTB sweep: 240
// conversations of 2-5 speakers (48 dev, 192 test), five systems that
// fire at different delays and false-alarm rates, both tasks, 1,000
// bootstrap resamples. Tracks are at 10 frames a second to keep the
// set-up short; the bundle holds what a real one holds.
func fullSizeBundle(b *testing.B) (store.Store, string) {
	rng := rand.New(rand.NewPCG(17, 17))
	c := &bundle.Corpus{Name: "mptb", Hash: "f00d", Kind: "mptb", Conversations: map[string]bundle.Conversation{},
		Dev: &floor.GoldSet{TauPre: 0.25, TauMax: 3}, Test: &floor.GoldSet{TauPre: 0.25, TauMax: 3}}
	systems := []string{"rms", "webrtcvad", "silero", "rms-endpointer", "silero-endpointer"}
	delays := []float64{0.1, 0.3, 0.6, 1.2, 2.0}
	noise := []int{2, 3, 4, 6, 8}
	tracks := make([][2]map[floor.Task]*score.ProbsFile, len(systems))
	for s := range systems {
		for split := range 2 {
			tracks[s][split] = map[floor.Task]*score.ProbsFile{}
			for _, task := range floor.Tasks {
				tracks[s][split][task] = &score.ProbsFile{Task: task, FrameRate: 10}
			}
		}
	}
	var transfers []floor.Transfer
	types := []string{"casual", "narrative", "debate", "planning"}
	for i := range 240 {
		id, split, si := fmt.Sprintf("mptb-%03d", i), "test", 1
		if i%5 == 0 {
			split, si = "dev", 0
		}
		speakers := 2 + i%4
		var events []floor.Event
		for t := 2.0; t < 110; t += 5 + rng.Float64()*3 {
			sp := 1 + rng.IntN(speakers)
			turn := floor.Event{Kind: floor.Turn, Speaker: sp, Start: t - 2, End: t, Ending: floor.Yielded, Words: 6}
			if rng.IntN(3) == 0 {
				turn.Holds = []floor.Hold{{Start: t - 1.2, End: t - 0.8, AfterQuestion: rng.IntN(2) == 0}}
			}
			events = append(events, turn)
			other := 1 + (sp % speakers)
			if rng.IntN(2) == 0 {
				events = append(events, floor.Event{Kind: floor.Interruption, Speaker: other, Start: t + 1, End: t + 2, Words: 1 + rng.IntN(12)})
			} else {
				events = append(events, floor.Event{Kind: floor.Backchannel, Speaker: other, Start: t + 1, End: t + 1.4, Words: 1})
			}
		}
		transfers = append(transfers, floor.Transfers(floor.EventFloorSegments(events))...)
		g := floor.DeriveMPTB(id, 120, events, floor.DefaultInterruptedGuard)
		a := floor.MPTBAnatomy(&g, events)
		c.Conversations[id] = bundle.Conversation{ID: id, Split: split, Anatomy: &a,
			Attributes: map[string]string{"speakers": fmt.Sprint(speakers), "type": types[i%4], "snr_band": []string{"20-25", "25-30", "30-35"}[i%3]}}
		gs := map[bool]*floor.GoldSet{true: c.Dev, false: c.Test}[split == "dev"]
		gs.Conversations = append(gs.Conversations, g)
		for s := range systems {
			for _, task := range floor.Tasks {
				cp := score.ConversationProbs{ID: id}
				for range speakers {
					cp.Speakers = append(cp.Speakers, make([]float64, 1200))
				}
				for _, an := range g.Task(task).Positives {
					if f := int((an.Time + delays[s] + 0.3*rng.Float64()) * 10); f < 1200 && rng.IntN(10) < 8 {
						cp.Speakers[an.Speaker-1][f] = 0.5 + 0.5*rng.Float64()
					}
				}
				for _, n := range g.Task(task).Negatives {
					if rng.IntN(noise[s]) == 0 {
						cp.Speakers[n.Speaker-1][int(n.Start*10)] = rng.Float64()
					}
				}
				tracks[s][si][task].Conversations = append(tracks[s][si][task].Conversations, cp)
			}
		}
	}
	c.Timing = floor.NewTiming(transfers)
	meta := bundle.Meta{Name: "full-size", SpecHash: "bench", Spec: json.RawMessage(`{}`), CodeVersion: "bench",
		Protocol: score.DefaultParams(), Resamples: 1000, Seed: 1, Inputs: []bundle.InputRef{{Kind: "corpus", Name: c.Name, Hash: c.Hash}}}
	var evals []bundle.Evaluation
	for s, name := range systems {
		e, err := bundle.Evaluate(&bundle.Input{System: name, SystemHash: name, Corpus: c, DevProbs: tracks[s][0], TestProbs: tracks[s][1],
			Params: meta.Protocol, Resamples: meta.Resamples, Seed: meta.Seed})
		if err != nil {
			b.Fatal(err)
		}
		evals = append(evals, *e)
	}
	files, _, err := bundle.Build(meta, evals, nil, "2026-12-01T00:00:00Z")
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	id := bundle.ID(meta)
	for _, f := range files {
		if err := store.PutBytes(context.Background(), st, keys.Bundle(id, f.Name), f.Data); err != nil {
			b.Fatal(err)
		}
		if f.Name == "results.json" {
			b.Logf("results.json: %d bytes", len(f.Data))
		}
	}
	return st, id
}

func serveOnce(b *testing.B, h http.Handler, path string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code != 200 {
		b.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
	}
}

// BenchmarkBundlePage renders the bundle page of a full-size bundle: cold
// (a new viewer reads and parses the bundle from the store each time) and
// warm (parsed results cached), and a page of the event browser deep into
// the events.
func BenchmarkBundlePage(b *testing.B) {
	st, id := fullSizeBundle(b)
	quiet := log.New(io.Discard, "", 0)
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			serveOnce(b, viewer.New(st, quiet), "/bundles/"+id+"/")
		}
	})
	warm := viewer.New(st, quiet)
	serveOnce(b, warm, "/bundles/"+id+"/")
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			serveOnce(b, warm, "/bundles/"+id+"/")
		}
	})
	b.Run("events-page-100", func(b *testing.B) {
		for b.Loop() {
			serveOnce(b, warm, "/bundles/"+id+"/events?page=100")
		}
	})
}
