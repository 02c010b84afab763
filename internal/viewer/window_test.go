package viewer_test

import (
	"context"
	"encoding/json"
	"html"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
)

// A system in budget under the span window and not under the anchored
// one is marked on the bundle page, which says what the mark means and
// shows test fp_rate under both windows and recall within each latency
// budget.
func TestBundlePageMarksTheBlindSpot(t *testing.T) {
	meta := bundle.Meta{Name: "blind", SpecHash: "s", Spec: json.RawMessage(`{}`), CodeVersion: "test", Protocol: score.DefaultParams()}
	task := func(spanFP, anchoredFP int, blind bool) evaluate.TaskResult {
		var per []evaluate.ConvCounts
		var sum score.Counts
		for i := range 4 {
			c := score.Counts{TP: 3, FN: 1, FP: spanFP, TN: 10 - spanFP, LatenciesMS: []float64{100, 400, 900},
				Windows: score.WindowCounts{Span: score.NegativeCounts{FP: spanFP, TN: 10 - spanFP}, Anchored: score.NegativeCounts{FP: anchoredFP, TN: 10 - anchoredFP}}}
			per = append(per, evaluate.ConvCounts{ID: string(rune('a' + i)), TP: c.TP, FN: c.FN, FP: c.FP, TN: c.TN, Latencies: c.LatenciesMS,
				Windows: evaluate.WindowCounts{Span: evaluate.NegativeCounts{FP: spanFP, TN: 10 - spanFP}, Anchored: evaluate.NegativeCounts{FP: anchoredFP, TN: 10 - anchoredFP}}})
			sum.Add(c)
		}
		dev := report.Metrics(score.Counts{TP: 1, FN: 1, TN: 10, Windows: score.WindowCounts{Span: score.NegativeCounts{TN: 10}, Anchored: score.NegativeCounts{TN: 10}}}, nil)
		test := report.Metrics(sum, meta.Protocol.LatencyBudgetsMS)
		return evaluate.TaskResult{Task: floor.TaskINT, HasOP: true, Theta: 0.5, InBudget: true, InBudgetByWindow: report.WindowBudgets{Span: true, Anchored: !blind},
			BlindSpot: blind, Dev: &dev, Test: &test, TestByConv: per}
	}
	evals := []evaluate.Evaluation{
		{System: "after-overlap", SystemHash: "a", Corpus: "c", CorpusHash: "h", Tasks: []evaluate.TaskResult{task(1, 5, true)}},
		{System: "honest", SystemHash: "b", Corpus: "c", CorpusHash: "h", Tasks: []evaluate.TaskResult{task(1, 1, false)}},
	}
	files, res, err := bundle.Build(meta, bundle.Parts{Evaluations: evals}, "2026-12-01T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	id := res.BundleID
	for _, f := range files {
		if err := store.PutBytes(context.Background(), st, keys.Bundle(id, f.Name), f.Data); err != nil {
			t.Fatal(err)
		}
	}
	resp, body := get(t, fixture{store: st}.server(t), "/bundles/"+id+"/")
	body = html.UnescapeString(body)
	if resp.StatusCode != 200 {
		t.Fatalf("bundle page: %d", resp.StatusCode)
	}
	for _, want := range []string{"INT leaderboard on c (negative window: span)", "test fp span", "test fp anchored", "recall ≤ 250/500/1000 ms",
		"0.250/0.500/0.750", ">in budget · blind spot<", report.BlindSpotCaption, "Ranked under the span negative window"} {
		if !strings.Contains(body, want) {
			t.Errorf("bundle page lacks %q", want)
		}
	}
	if strings.Count(body, "blind spot<") != 1 {
		t.Errorf("want exactly one system marked:\n%s", body)
	}
}
