package viewer_test

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/bundle/bundlefixture"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/viewer"
)

// fullSizeBundle stores a bundle the size of a full MPTB sweep
// (bundlefixture.FullMPTB): 240 conversations of 2-5 speakers, five
// systems, both tasks, 1,000 bootstrap resamples.
func fullSizeBundle(b *testing.B) (store.Store, string) {
	d := bundlefixture.FullMPTB()
	c, tracks := bundlefixture.Make(d)
	meta := bundle.Meta{Name: "full-size", SpecHash: "bench", Spec: json.RawMessage(`{}`), CodeVersion: "bench",
		Protocol: score.DefaultParams(), Resamples: 1000, Seed: 1, Inputs: []bundle.InputRef{{Kind: "corpus", Name: c.Name, Hash: c.Hash}}}
	var evals []evaluate.Evaluation
	for _, sys := range d.Systems {
		e, err := evaluate.System(&evaluate.Input{System: sys.Name, SystemHash: sys.Name, Corpus: c, DevProbs: tracks[sys.Name].Dev, TestProbs: tracks[sys.Name].Test,
			Params: meta.Protocol, Resamples: meta.Resamples, Seed: meta.Seed})
		if err != nil {
			b.Fatal(err)
		}
		evals = append(evals, *e)
	}
	files, res, err := bundle.Build(meta, bundle.Parts{Evaluations: evals}, "2026-12-01T00:00:00Z")
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	id := res.BundleID
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
			serveOnce(b, viewer.New(st, quiet, limits.Default()), "/bundles/"+id+"/")
		}
	})
	warm := viewer.New(st, quiet, limits.Default())
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
