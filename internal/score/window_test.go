package score

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
)

// anchoredRule is the published protocol with the anchored negative window.
func anchoredRule() Params {
	p := DefaultParams()
	p.NegativeWindow = AnchoredWindow
	return p
}

// checkWindows scores predictions under both windows and checks FP under
// each (TN is the rest of the spans), and that the counts under every
// window agree whichever window the matcher was made for.
func checkWindows(t *testing.T, name string, g *floor.TaskGold, preds [][]float64, spanFP, anchoredFP int) {
	t.Helper()
	span, anchored := ScoreTask(g, preds, paper), ScoreTask(g, preds, anchoredRule())
	n := len(g.Negatives)
	if span.FP != spanFP || span.TN != n-spanFP {
		t.Errorf("%s: span fp/tn %d/%d, want %d/%d", name, span.FP, span.TN, spanFP, n-spanFP)
	}
	if anchored.FP != anchoredFP || anchored.TN != n-anchoredFP {
		t.Errorf("%s: anchored fp/tn %d/%d, want %d/%d", name, anchored.FP, anchored.TN, anchoredFP, n-anchoredFP)
	}
	want := WindowCounts{NegativeCounts{spanFP, n - spanFP}, NegativeCounts{anchoredFP, n - anchoredFP}}
	if span.Windows != want || anchored.Windows != want {
		t.Errorf("%s: window counts %+v and %+v, want %+v", name, span.Windows, anchored.Windows, want)
	}
	if span.TP != anchored.TP || span.FN != anchored.FN {
		t.Errorf("%s: the window changed the positives: %+v vs %+v", name, span, anchored)
	}
}

// docs/protocol.md#negative-window: the span [20, 21] is charged under
// span for a prediction in [19.75, 21], under anchored in [19.75, 23]
// (max(21, 20 + tau_max)); both ends closed.
func TestAnchoredWindowBoundaries(t *testing.T) {
	t.Parallel()
	g := &floor.TaskGold{Negatives: []floor.Span{span(1, 20, 21)}}
	checkWindows(t, "at start - tau_pre", g, [][]float64{{19.75}}, 1, 1)
	checkWindows(t, "just before start - tau_pre", g, [][]float64{{19.7499}}, 0, 0)
	checkWindows(t, "at the end", g, [][]float64{{21.0}}, 1, 1)
	checkWindows(t, "just after the end", g, [][]float64{{21.0001}}, 0, 1)
	checkWindows(t, "at start + tau_max", g, [][]float64{{23.0}}, 0, 1)
	checkWindows(t, "just after start + tau_max", g, [][]float64{{23.0001}}, 0, 0)
	checkWindows(t, "two after the end, one span", g, [][]float64{{21.5, 22.5}}, 0, 1)
	checkWindows(t, "other speaker's prediction", g, [][]float64{nil, {21.5}}, 0, 0)

	// A span longer than tau_max reaches to its own end under both.
	long := &floor.TaskGold{Negatives: []floor.Span{span(1, 20, 25)}}
	checkWindows(t, "long span, at its end", long, [][]float64{{25.0}}, 1, 1)
	checkWindows(t, "long span, after its end", long, [][]float64{{25.0001}}, 0, 0)
}

// docs/protocol.md#negative-window: anchored still never charges a
// prediction an anchor claimed or one inside a positive window of the
// same speaker and task, and an excluded prediction is invisible to both.
func TestAnchoredWindowKeepsTheExemptions(t *testing.T) {
	t.Parallel()
	// Anchor 22: window [21.75, 25]. Span [20, 21]: anchored reach 23.
	g := &floor.TaskGold{Positives: anchors(1, 22), Negatives: []floor.Span{span(1, 20, 21)}}
	checkWindows(t, "claimed", g, [][]float64{{22.5}}, 0, 0)
	checkWindows(t, "inside the positive window, unclaimed", g, [][]float64{{22.1, 22.5}}, 0, 0)
	checkWindows(t, "at the positive window's start", g, [][]float64{{21.75, 22.2}}, 0, 0)
	checkWindows(t, "before the positive window", g, [][]float64{{21.6, 22.2}}, 0, 1)
	// Another speaker's positive window exempts nothing.
	other := &floor.TaskGold{Positives: anchors(2, 22), Negatives: []floor.Span{span(1, 20, 21)}}
	checkWindows(t, "another speaker's window", other, [][]float64{{22.1}}, 0, 1)
	excluded := &floor.TaskGold{Negatives: []floor.Span{span(1, 20, 21)}, Excluded: []floor.Span{span(1, 21.5, 22)}}
	checkWindows(t, "excluded", excluded, [][]float64{{21.7}}, 0, 0)
}

// The outcome of a span names the prediction that fired it under the
// matcher's window.
func TestAnchoredWindowOutcome(t *testing.T) {
	t.Parallel()
	g := &floor.TaskGold{Negatives: []floor.Span{span(1, 20, 21), span(1, 30, 30.5)}}
	preds := [][]float64{{21.5, 30.2}}
	_, o := NewMatcher(g, paper).Explain(preds, 0, 2)
	if want := []SpanOutcome{{}, {true, 30.2}}; !reflect.DeepEqual(o.Spans, want) {
		t.Errorf("span: outcomes %+v, want %+v", o.Spans, want)
	}
	_, o = NewMatcher(g, anchoredRule()).Explain(preds, 0, 2)
	if want := []SpanOutcome{{true, 21.5}, {true, 30.2}}; !reflect.DeepEqual(o.Spans, want) {
		t.Errorf("anchored: outcomes %+v, want %+v", o.Spans, want)
	}
}

// A rule that fires just after every negative ends is free under span and
// charged under anchored: the blind spot, by the budget rule.
func TestBlindSpot(t *testing.T) {
	t.Parallel()
	var g floor.TaskGold
	var preds []float64
	for i := range 10 {
		s := float64(10 * i)
		g.Negatives = append(g.Negatives, span(1, s, s+0.5))
		preds = append(preds, s+0.6)
	}
	c := ScoreTask(&g, [][]float64{preds}, paper)
	e := &TaskEvaluation{HasOperatingPoint: true, Dev: c, Test: c}
	b := paper.InBudgetUnder(e)
	if !b.Span || b.Anchored || !b.BlindSpot() {
		t.Fatalf("budgets %+v (fp span %v, anchored %v), want in under span only", b, c.FPRate(), c.UnderWindow(AnchoredWindow).FPRate())
	}
	if paper.InBudget(e) != b.Span || anchoredRule().InBudget(&TaskEvaluation{HasOperatingPoint: true, Dev: c.UnderWindow(AnchoredWindow), Test: c.UnderWindow(AnchoredWindow)}) {
		t.Error("InBudget disagrees with InBudgetUnder")
	}
}

// docs/protocol.md#recall-within-a-latency-budget: a match counts within
// L when its latency is at most L ms; early matches always do.
func TestRecallWithinLatency(t *testing.T) {
	t.Parallel()
	g := &floor.TaskGold{Positives: anchors(1, 10, 20, 30, 40, 50)}
	// Latencies -200, 250, 500, 1000.5; the anchor at 50 is missed.
	c := ScoreTask(g, [][]float64{{9.8, 20.25, 30.5, 41.0005}}, paper)
	for _, tc := range []struct {
		budget int
		tp     int
	}{{0, 1}, {249, 1}, {250, 2}, {500, 3}, {1000, 3}, {1001, 4}} {
		w := c.WithinLatency(tc.budget)
		if w.TP != tc.tp || w.FN != 5-tc.tp || len(w.LatenciesMS) != tc.tp {
			t.Errorf("within %d ms: tp/fn %d/%d latencies %v, want tp %d", tc.budget, w.TP, w.FN, w.LatenciesMS, tc.tp)
		}
		if got, want := c.RecallWithin(tc.budget), float64(tc.tp)/5; got != want {
			t.Errorf("recall within %d ms = %v, want %v", tc.budget, got, want)
		}
	}
	if r := (Counts{}).RecallWithin(500); !math.IsNaN(r) {
		t.Errorf("recall within of no positives = %v, want NaN", r)
	}
}

// A sweep read under another window is the sweep scored under it.
func TestDevSweepUnderWindow(t *testing.T) {
	t.Parallel()
	g, p := randomSplit(rand.New(rand.NewPCG(7, 7)), 4, 2, 50)
	for _, w := range NegativeWindows {
		direct := DefaultParams()
		direct.NegativeWindow = w
		want, err := SweepDev(g, p, direct)
		if err != nil {
			t.Fatal(err)
		}
		swept, err := SweepDev(g, p, paper)
		if err != nil {
			t.Fatal(err)
		}
		got := swept.Under(w, direct.FPBudgetDev)
		if got.OP != want.OP {
			t.Errorf("%s: operating point %d, want %d", w, got.OP, want.OP)
		}
		for j := range want.Rows {
			if !sameCounts(got.Rows[j].Counts, want.Rows[j].Counts) || !sameCounts(got.Rows[j].Backchannel, want.Rows[j].Backchannel) {
				t.Fatalf("%s row %d: %+v, want %+v", w, j, got.Rows[j], want.Rows[j])
			}
		}
	}
}

// EvaluateTaskWindows is EvaluateTask under each window.
func TestEvaluateTaskWindows(t *testing.T) {
	t.Parallel()
	g, dev := randomSplit(rand.New(rand.NewPCG(8, 8)), 4, 2, 50)
	_, test := randomSplit(rand.New(rand.NewPCG(8, 8)), 4, 2, 50)
	in := TaskInput{System: "s", DevGold: g, Dev: dev, TestGold: g, Test: test}
	both, err := EvaluateTaskWindows(in, paper)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range NegativeWindows {
		p := DefaultParams()
		p.NegativeWindow = w
		one, err := EvaluateTask(in, p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(one, both[i]) {
			t.Errorf("%s: EvaluateTaskWindows %+v, EvaluateTask %+v", w, both[i], one)
		}
	}
}

func TestParamsValidateWindowAndBudgets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		set  func(*Params)
		ok   bool
	}{
		{"defaults", func(*Params) {}, true},
		{"anchored", func(p *Params) { p.NegativeWindow = AnchoredWindow }, true},
		{"no budgets", func(p *Params) { p.LatencyBudgetsMS = nil }, true},
		{"unknown window", func(p *Params) { p.NegativeWindow = "wide" }, false},
		{"empty window", func(p *Params) { p.NegativeWindow = "" }, false},
		{"negative budget", func(p *Params) { p.LatencyBudgetsMS = []int{-1} }, false},
		{"unsorted budgets", func(p *Params) { p.LatencyBudgetsMS = []int{500, 250} }, false},
		{"repeated budget", func(p *Params) { p.LatencyBudgetsMS = []int{250, 250} }, false},
		{"too many budgets", func(p *Params) { p.LatencyBudgetsMS = make([]int, MaxLatencyBudgets+1) }, false},
	} {
		p := DefaultParams()
		tc.set(&p)
		if err := p.Validate(limits.Default()); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// Params written before the negative window and the latency budgets
// existed read as the defaults they were scored under; given ones are
// kept, an empty budget list included.
func TestParamsJSONDefaultsAbsentFields(t *testing.T) {
	t.Parallel()
	var old Params
	if err := json.Unmarshal([]byte(`{"tau_pre_s":0.25,"tau_max_s":3,"fp_budget_dev":0.1,"fp_budget_test":0.15,"n_quantiles":512,"refractory_s":2}`), &old); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(old, DefaultParams()) {
		t.Errorf("old params read as %+v, want the defaults", old)
	}
	p := anchoredRule()
	p.LatencyBudgetsMS = []int{}
	data, _ := json.Marshal(p)
	var back Params
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p) {
		t.Errorf("round trip %+v, want %+v", back, p)
	}
}
