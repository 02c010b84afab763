package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

// simulated draws n conversations of a system whose items are found with
// probability recall and whose negatives fire with probability fpRate:
// pos positives and neg negatives per conversation.
func simulated(rng *rand.Rand, n, pos, neg int, recall, fpRate float64) []evaluate.ConvCounts {
	out := make([]evaluate.ConvCounts, n)
	for i := range out {
		c := evaluate.ConvCounts{ID: fmt.Sprintf("conv-%03d", i)}
		for range pos {
			if rng.Float64() < recall {
				c.TP++
			} else {
				c.FN++
			}
		}
		for range neg {
			if rng.Float64() < fpRate {
				c.FP++
			} else {
				c.TN++
			}
		}
		out[i] = c
	}
	return out
}

// pairedTask is a task result scored from per-conversation counts.
func pairedTask(convs []evaluate.ConvCounts, inBudget bool) evaluate.TaskResult {
	var sum score.Counts
	for _, c := range convs {
		sum.TP, sum.FN, sum.FP, sum.TN = sum.TP+c.TP, sum.FN+c.FN, sum.FP+c.FP, sum.TN+c.TN
	}
	m := report.Metrics(sum, nil)
	return evaluate.TaskResult{Task: floor.TaskEOT, HasOP: true, InBudget: inBudget, Test: &m, TestByConv: convs}
}

// bundleOf is a bundle of one corpus with the given systems' EOT results.
func bundleOf(id string, systems map[string]evaluate.TaskResult) *bundle.Results {
	r := &bundle.Results{BundleID: id, Protocol: score.DefaultParams(), Resamples: 1000, Seed: 7}
	for _, name := range []string{"a", "b", "c"} {
		if t, ok := systems[name]; ok {
			r.Evaluations = append(r.Evaluations, evaluate.Evaluation{System: name, SystemHash: "sys-" + name, Corpus: "c", CorpusHash: "h", Tasks: []evaluate.TaskResult{t}})
		}
	}
	return r
}

// The verdicts on bundles whose answer is known: a clear drop in recall
// regresses, the same system's noise stays within the CI, leaving the
// budget regresses whatever the CI says, a system only in the new bundle
// is new, and the same inputs are identical without resampling.
func TestPairedVerdicts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	good := simulated(rng, 40, 10, 30, 0.8, 0.05)
	noisy := simulated(rng, 40, 10, 30, 0.8, 0.05)
	dropped := simulated(rng, 40, 10, 30, 0.5, 0.05)
	noisierFP := simulated(rng, 40, 10, 30, 0.8, 0.25)

	withHash := func(r *bundle.Results, system, hash string) *bundle.Results {
		for i := range r.Evaluations {
			if r.Evaluations[i].System == system {
				r.Evaluations[i].SystemHash = hash
			}
		}
		return r
	}
	for _, c := range []struct {
		name       string
		old, cur   *bundle.Results
		want       Outcome
		wantReason string
	}{
		{"clear drop", bundleOf("o", map[string]evaluate.TaskResult{"a": pairedTask(good, true)}),
			withHash(bundleOf("n", map[string]evaluate.TaskResult{"a": pairedTask(dropped, true)}), "a", "changed"), Regressed, "recall CI below"},
		{"fp_rate up", bundleOf("o", map[string]evaluate.TaskResult{"a": pairedTask(good, true)}),
			withHash(bundleOf("n", map[string]evaluate.TaskResult{"a": pairedTask(noisierFP, true)}), "a", "changed"), Regressed, "fp_rate CI above"},
		{"clear rise", bundleOf("o", map[string]evaluate.TaskResult{"a": pairedTask(dropped, true)}),
			withHash(bundleOf("n", map[string]evaluate.TaskResult{"a": pairedTask(good, true)}), "a", "changed"), Improved, "recall CI above"},
		{"noise within the CI", bundleOf("o", map[string]evaluate.TaskResult{"a": pairedTask(good, true)}),
			withHash(bundleOf("n", map[string]evaluate.TaskResult{"a": pairedTask(noisy, true)}), "a", "changed"), Unchanged, ""},
		{"budget exit", bundleOf("o", map[string]evaluate.TaskResult{"a": pairedTask(good, true)}),
			withHash(bundleOf("n", map[string]evaluate.TaskResult{"a": pairedTask(good, false)}), "a", "changed"), Regressed, "left the budget"},
		{"identical inputs", bundleOf("o", map[string]evaluate.TaskResult{"a": pairedTask(good, true)}),
			bundleOf("n", map[string]evaluate.TaskResult{"a": pairedTask(good, true)}), Identical, ""},
		{"same results from a changed system", bundleOf("o", map[string]evaluate.TaskResult{"a": pairedTask(good, true)}),
			withHash(bundleOf("n", map[string]evaluate.TaskResult{"a": pairedTask(good, true)}), "a", "changed"), Unchanged, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Paired(c.old, c.cur, PairedOptions{Tolerance: DefaultTolerance})
			if len(v.Rows) != 1 {
				t.Fatalf("%d rows, want 1", len(v.Rows))
			}
			r := v.Rows[0]
			if r.Verdict != c.want || !strings.Contains(r.Reason, c.wantReason) {
				t.Fatalf("verdict %s (%s), want %s (%s); recall %+v fp %+v", r.Verdict, r.Reason, c.want, c.wantReason, r.Recall, r.FPRate)
			}
			if c.want == Identical && r.Recall != nil {
				t.Errorf("identical inputs were resampled: %+v", r.Recall)
			}
			if c.want != Identical && (r.Recall == nil || r.Conversations != 40) {
				t.Errorf("no paired bootstrap over the 40 shared conversations: %+v", r)
			}
			if (v.Regressions() > 0) != (c.want == Regressed) {
				t.Errorf("Regressions() = %d for %s", v.Regressions(), c.want)
			}
		})
	}
}

// A clear drop's CI lies below zero and excludes it, with a p-value under
// 0.05 and the delta inside its own interval.
func TestPairedDropCI(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	good, dropped := simulated(rng, 40, 10, 30, 0.8, 0.05), simulated(rng, 40, 10, 30, 0.5, 0.05)
	v := Paired(bundleOf("o", map[string]evaluate.TaskResult{"a": pairedTask(good, true)}),
		withSystemHash(bundleOf("n", map[string]evaluate.TaskResult{"a": pairedTask(dropped, true)}), "x"), PairedOptions{Tolerance: DefaultTolerance})
	d := v.Rows[0].Recall
	if !(d.Lo <= d.Delta && d.Delta <= d.Hi && d.Hi < 0 && d.P < 0.05) {
		t.Fatalf("recall delta %+v: want a CI below zero around the delta, p < 0.05", d)
	}
}

func withSystemHash(r *bundle.Results, hash string) *bundle.Results {
	for i := range r.Evaluations {
		r.Evaluations[i].SystemHash = hash
	}
	return r
}

// Systems in only one bundle are new or removed; a removed one counts
// as a regression, a new one does not.
func TestPairedNewAndRemoved(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	convs := simulated(rng, 10, 5, 5, 0.7, 0.1)
	old := bundleOf("o", map[string]evaluate.TaskResult{"a": pairedTask(convs, true), "b": pairedTask(convs, true)})
	cur := bundleOf("n", map[string]evaluate.TaskResult{"a": pairedTask(convs, true), "c": pairedTask(convs, true)})
	v := Paired(old, cur, PairedOptions{Tolerance: DefaultTolerance})
	got := map[string]Outcome{}
	for _, r := range v.Rows {
		got[r.System] = r.Verdict
	}
	if got["a"] != Identical || got["b"] != Removed || got["c"] != New || v.Regressions() != 1 {
		t.Fatalf("verdicts %v, %d regressions; want a identical, b removed, c new, 1 regression", got, v.Regressions())
	}
	if s := v.Summary(); s != "1 removed, 1 new, 1 identical" {
		t.Errorf("summary %q", s)
	}
}

// Only conversations both bundles scored are paired: a conversation
// dropped from the new bundle is left out, not counted as a zero.
func TestPairedOnlySharedConversations(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	convs := simulated(rng, 30, 10, 30, 0.8, 0.05)
	v := Paired(bundleOf("o", map[string]evaluate.TaskResult{"a": pairedTask(convs, true)}),
		withSystemHash(bundleOf("n", map[string]evaluate.TaskResult{"a": pairedTask(convs[5:], true)}), "x"), PairedOptions{Tolerance: DefaultTolerance})
	r := v.Rows[0]
	if r.Conversations != 25 || r.Recall.Delta != 0 || r.Verdict != Unchanged {
		t.Fatalf("row %+v: want 25 paired conversations, delta 0, unchanged", r)
	}
}

// nullFalseAlarms is the share of simulated pairs of bundles, both drawn
// from the same rates, that a paired comparison at the defaults flags as
// regressed, and as changed at all (regressed or improved).
func nullFalseAlarms(trials, resamples int, seed uint64) (regressed, changed float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	var nReg, nChanged int
	for i := range trials {
		old := bundleOf("o", map[string]evaluate.TaskResult{"a": pairedTask(simulated(rng, 40, 10, 30, 0.7, 0.1), true)})
		cur := withSystemHash(bundleOf("n", map[string]evaluate.TaskResult{"a": pairedTask(simulated(rng, 40, 10, 30, 0.7, 0.1), true)}), "x")
		v := Paired(old, cur, PairedOptions{Tolerance: DefaultTolerance, Resamples: resamples, Seed: uint64(i)})
		switch v.Rows[0].Verdict {
		case Regressed:
			nReg++
			nChanged++
		case Improved:
			nChanged++
		}
	}
	return float64(nReg) / float64(trials), float64(nChanged) / float64(trials)
}

// Under the null (old and new drawn from the same rates, 40 conversations
// of 10 positives and 30 negatives, recall 0.7, fp_rate 0.1) at most about
// 5% of pairs are flagged as regressed at the defaults.
func TestPairedFalseAlarmRate(t *testing.T) {
	trials := 400
	if testing.Short() {
		trials = 100
	}
	regressed, changed := nullFalseAlarms(trials, 1000, 42)
	t.Logf("null false alarms over %d pairs: %.1f%% regressed, %.1f%% regressed or improved", trials, 100*regressed, 100*changed)
	if regressed > 0.07 {
		t.Fatalf("%.1f%% of null pairs flagged as regressed, want about 5%% or fewer", 100*regressed)
	}
}

// verdict.md lists what moved first, with its delta and CI, and says how
// it was computed.
func TestVerdictMarkdown(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	good, dropped := simulated(rng, 40, 10, 30, 0.8, 0.05), simulated(rng, 40, 10, 30, 0.5, 0.05)
	old := bundleOf("o", map[string]evaluate.TaskResult{"a": pairedTask(good, true), "b": pairedTask(good, true)})
	cur := bundleOf("n", map[string]evaluate.TaskResult{"a": pairedTask(dropped, true), "b": pairedTask(good, true)})
	cur.Evaluations[0].SystemHash = "changed"
	md := string(Paired(old, cur, PairedOptions{Tolerance: DefaultTolerance}).Markdown())
	moved, rest, ok := strings.Cut(md, "## Unchanged")
	if !ok || !strings.Contains(moved, "| regressed | c | a | eot |") || !strings.Contains(rest, "| identical | c | b | eot |") {
		t.Fatalf("verdict.md:\n%s", md)
	}
	if !strings.Contains(md, "1 regressed, 1 identical") || !strings.Contains(md, "1000 resamples, seed 7") {
		t.Errorf("verdict.md does not say what it found and how:\n%s", md)
	}
}

// A system that finds the same events later keeps its recall and loses
// recall within the latency budgets it no longer meets: the verdict
// regresses on them and names the budget.
func TestPairedRecallWithinBudgets(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	fast := simulated(rng, 40, 10, 30, 0.8, 0.05)
	slow := slices.Clone(fast)
	for i := range fast {
		fast[i].Latencies, slow[i].Latencies = make([]float64, fast[i].TP), make([]float64, fast[i].TP)
		for j := range fast[i].Latencies {
			fast[i].Latencies[j], slow[i].Latencies[j] = 200, 700
		}
	}
	v := Paired(bundleOf("o", map[string]evaluate.TaskResult{"a": pairedTask(fast, true)}),
		withSystemHash(bundleOf("n", map[string]evaluate.TaskResult{"a": pairedTask(slow, true)}), "x"), PairedOptions{Tolerance: DefaultTolerance})
	r := v.Rows[0]
	if r.Verdict != Regressed || r.Reason != "recall within 250 ms CI below -tolerance; recall within 500 ms CI below -tolerance" {
		t.Fatalf("verdict %s (%s), want regressed on recall within 250 and 500 ms", r.Verdict, r.Reason)
	}
	if len(r.RecallWithin) != 3 || r.Recall.Delta != 0 {
		t.Fatalf("recall %+v, within %+v", r.Recall, r.RecallWithin)
	}
	for i, w := range []struct {
		budget   int
		old, new float64
	}{{250, 0.8, 0}, {500, 0.8, 0}, {1000, 0.8, 0.8}} {
		got := r.RecallWithin[i]
		if got.BudgetMS != w.budget || math.Abs(float64(got.Old)-w.old) > 0.1 || math.Abs(float64(got.New)-w.new) > 0.1 {
			t.Errorf("within %d ms: %+v, want old ≈ %v new ≈ %v", w.budget, got, w.old, w.new)
		}
	}
	if r.RecallWithin[2].Delta != 0 {
		t.Errorf("within 1000 ms moved: %+v", r.RecallWithin[2])
	}
}
