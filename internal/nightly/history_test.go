package nightly_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/bundle/bundlefixture"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
)

// History lists, oldest run first, each system's test value and 95%
// interval of the metric from the run's bundle, skips runs without a
// bundle, and keeps to one system when asked; Histories gives the same
// points for every metric at once.
func TestHistoryReadsEachMetricFromTheRunsBundles(t *testing.T) {
	ctx := context.Background()
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := bundlefixture.Mini()
	c, tracks := bundlefixture.Make(d)
	meta := bundle.Meta{Name: "history", Spec: json.RawMessage(`{}`), Protocol: score.DefaultParams(), Resamples: 20, Seed: 1}
	var evals []evaluate.Evaluation
	for _, sys := range d.Systems {
		e, err := evaluate.System(&evaluate.Input{System: sys.Name, SystemHash: sys.Name, Corpus: c, DevProbs: tracks[sys.Name].Dev,
			TestProbs: tracks[sys.Name].Test, Params: meta.Protocol, Resamples: meta.Resamples, Seed: meta.Seed})
		if err != nil {
			t.Fatal(err)
		}
		evals = append(evals, *e)
	}
	files, res, err := bundle.Build(meta, bundle.Parts{Evaluations: evals}, "2026-12-01T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	id := res.BundleID
	for _, f := range files {
		if err := store.PutBytes(ctx, st, keys.Bundle(id, f.Name), f.Data); err != nil {
			t.Fatal(err)
		}
	}
	var scheduled []string
	for day, bundleID := range []string{id, "", id} { // the second run failed
		at := time.Date(2026, 12, 1+day, 3, 0, 0, 0, time.UTC)
		data, _ := json.Marshal(nightly.Run{Schedule: "h", Scheduled: at.Format(time.RFC3339), BundleID: bundleID})
		if err := store.PutBytes(ctx, st, keys.ScheduleRun("h", at)+nightly.RunFile, data); err != nil {
			t.Fatal(err)
		}
		scheduled = append(scheduled, at.Format(time.RFC3339))
	}
	if _, err := nightly.History(ctx, st, "h", "<x>", "eot.recall"); err == nil || !strings.Contains(err.Error(), `--system "<x>": no run of schedule h evaluated a system of that name (its runs have `) {
		t.Errorf("an unknown system: %v", err)
	}
	runs, err := nightly.Runs(ctx, st, "h")
	if err != nil {
		t.Fatal(err)
	}
	all, err := nightly.Histories(ctx, st, runs, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, metric := range nightly.Metrics {
		got, err := nightly.History(ctx, st, "h", "late", metric)
		if err != nil {
			t.Fatal(err)
		}
		if len(all[metric]) != 4 || len(got) != 2 || got[0].Scheduled != scheduled[0] || got[1].Scheduled != scheduled[2] {
			t.Fatalf("%s: %d points of every system, %d of late (%+v), want 4 and 2, of the first and third runs", metric, len(all[metric]), len(got), got)
		}
		for _, p := range got {
			var want *evaluate.TaskResult
			for _, tk := range res.Evaluations[1].Tasks {
				if string(tk.Task)+".recall" == metric || string(tk.Task)+".fp_rate" == metric {
					want = &tk
				}
			}
			value, iv := want.Test.Recall, want.Test.CI95.Recall
			if metric[len(metric)-7:] == "fp_rate" {
				value, iv = want.Test.FPRate, want.Test.CI95.FPRate
			}
			if p.System != "late" || p.Corpus != d.Name || p.BundleID != id || p.Value != value || p.Lo != iv[0] || p.Hi != iv[1] {
				t.Errorf("%s: %+v, want late's %v [%v, %v] on %s", metric, p, value, iv[0], iv[1], d.Name)
			}
		}
	}
}
