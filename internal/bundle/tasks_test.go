package bundle_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/bundle/bundlefixture"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
)

// buildOneTaskBundle is buildBundle's sweep where each system scores the
// tasks given for it: the tracks of its other task are left out, as a
// one-task system has none.
func buildOneTaskBundle(t *testing.T, tasks map[string][]floor.Task) *bundle.Results {
	t.Helper()
	c, tracks := bundlefixture.Make(bundlefixture.Mini())
	real, realTracks := bundlefixture.Make(bundlefixture.RealMini())
	meta := bundle.Meta{Name: "unit", SpecHash: "abc123", Spec: json.RawMessage(`{"name":"unit"}`), CodeVersion: "test",
		Protocol: score.DefaultParams(), Resamples: 50, Seed: 9}
	only := func(probs map[floor.Task]*score.ProbsFile, s string) map[floor.Task]*score.ProbsFile {
		out := map[floor.Task]*score.ProbsFile{}
		for _, task := range tasks[s] {
			out[task] = probs[task]
		}
		return out
	}
	var evals []evaluate.Evaluation
	for _, s := range []string{"early", "late"} {
		e, err := evaluate.System(&evaluate.Input{System: s, SystemHash: s + "-hash", Corpus: c, DevProbs: only(tracks[s].Dev, s), TestProbs: only(tracks[s].Test, s),
			Params: meta.Protocol, Resamples: meta.Resamples, Seed: meta.Seed})
		if err != nil {
			t.Fatal(err)
		}
		r, err := evaluate.System(&evaluate.Input{System: s, SystemHash: s + "-hash", Corpus: real, DevProbs: only(realTracks[s].Dev, s), TestProbs: only(realTracks[s].Test, s),
			Params: meta.Protocol, Resamples: meta.Resamples, Seed: meta.Seed, Transferred: e.OperatingPoints(c.Name)})
		if err != nil {
			t.Fatal(err)
		}
		evals = append(evals, *e, *r)
	}
	files, res, err := bundle.Build(meta, bundle.Parts{Evaluations: evals}, "2026-11-30T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasPrefix(f.Name, "predictions/") && strings.HasSuffix(f.Name, "/late.json") && len(tasks["late"]) == 1 {
			t.Errorf("%s: a submission of a one-task system", f.Name)
		}
	}
	return res
}

// A both-task system beside an EOT-only one: the EOT leaderboard ranks
// both and pairs them, the INT one holds the both-task system alone with
// no pair; the sim-to-real row of the EOT-only system leaves the INT
// cells empty and names its EOT threshold only; it writes no submission.
func TestMixedLeaderboardsRankAndPairOnSharedTasks(t *testing.T) {
	res := buildOneTaskBundle(t, map[string][]floor.Task{"early": floor.Tasks, "late": {floor.TaskEOT}})
	both := buildOneTaskBundle(t, map[string][]floor.Task{"early": floor.Tasks, "late": floor.Tasks})
	for i, lb := range res.Leaderboards {
		var systems []string
		for _, r := range lb.Rows {
			systems = append(systems, r.System)
		}
		switch lb.Task {
		case floor.TaskEOT:
			// The EOT-only system's EOT results are its both-task twin's.
			if got, want := mustJSON(t, lb), mustJSON(t, both.Leaderboards[i]); got != want || len(lb.Paired) != 1 {
				t.Errorf("%s EOT leaderboard with an EOT-only system:\n%s\nwant its both-task twin's:\n%s", lb.Corpus, got, want)
			}
		case floor.TaskINT:
			if !slices.Equal(systems, []string{"early"}) || len(lb.Paired) != 0 {
				t.Errorf("%s INT leaderboard of %v with %d pairs", lb.Corpus, systems, len(lb.Paired))
			}
		}
	}
	table := bundle.SimToReal(res)
	for _, row := range table.Rows {
		if row[0] == "late" && (row[3] != "EOT: mptb-mini dev" && row[3] != "EOT: own dev" || row[6] != "—" || row[7] != "—") {
			t.Errorf("sim-to-real row %v", row)
		}
	}
}

// A bundle whose systems all score EOT alone draws no INT figure panel
// and shows no INT table.
func TestBundleOfEOTOnlySystemsHasNoINT(t *testing.T) {
	eotOnly := []floor.Task{floor.TaskEOT}
	res := buildOneTaskBundle(t, map[string][]floor.Task{"early": eotOnly, "late": eotOnly})
	for _, f := range bundle.Figures(res) {
		for _, p := range f.Panels {
			if strings.Contains(p.Title, "INT") {
				t.Errorf("figure %s: panel %q", f.Name, p.Title)
			}
		}
	}
	for _, tb := range bundle.ReportTables(res) {
		if strings.Contains(tb.Title, "INT") {
			t.Errorf("table %q", tb.Title)
		}
	}
	for _, lb := range res.Leaderboards {
		if lb.Task != floor.TaskEOT {
			t.Errorf("a %s leaderboard on %s", lb.Task, lb.Corpus)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
