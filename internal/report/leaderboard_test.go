package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
)

// standings are one system of each status, with counts whose rates and
// latency percentiles are worked out by hand in the tests below.
func standings() []score.Standing {
	return []score.Standing{
		// In budget under span, not under anchored: the blind spot.
		{Rank: 1, TaskEvaluation: &score.TaskEvaluation{System: "alpha", Task: floor.TaskEOT, Candidates: 7,
			HasOperatingPoint: true, InBudget: true, InBudgetUnder: score.WindowBudgets{Span: true}, Theta: 0.5,
			Dev:  score.Counts{TP: 4, FN: 1, FP: 1, TN: 9, Windows: windows(1, 9, 1, 9)},
			Test: score.Counts{TP: 3, FN: 1, FP: 1, TN: 4, LatenciesMS: []float64{300, 100, 200}, Windows: windows(1, 4, 2, 3)}}},
		// A submission: in budget, but no threshold.
		{Rank: 2, TaskEvaluation: &score.TaskEvaluation{System: "sub", Task: floor.TaskEOT,
			HasOperatingPoint: true, InBudget: true, InBudgetUnder: score.WindowBudgets{Span: true, Anchored: true}, Theta: math.NaN(),
			Dev:  score.Counts{TP: 1, FN: 1, FP: 0, TN: 2, Windows: windows(0, 2, 0, 2)},
			Test: score.Counts{TP: 1, FN: 3, FP: 0, TN: 2, LatenciesMS: []float64{640}, Windows: windows(0, 2, 0, 2)}}},
		{TaskEvaluation: &score.TaskEvaluation{System: "beta", Task: floor.TaskEOT, Candidates: 3,
			HasOperatingPoint: true, Theta: 0.25,
			Dev:  score.Counts{TP: 1, FN: 1, FP: 3, TN: 7, Windows: windows(3, 7, 4, 6)},
			Test: score.Counts{TP: 0, FN: 4, FP: 0, TN: 5, Windows: windows(0, 5, 1, 4)}}},
		{TaskEvaluation: &score.TaskEvaluation{System: "gamma", Task: floor.TaskEOT, Unsupported: true}},
		{TaskEvaluation: &score.TaskEvaluation{System: "delta", Task: floor.TaskEOT, Candidates: 5}},
	}
}

// windows are negative counts under span (fp, tn) and anchored (fp, tn).
func windows(spanFP, spanTN, anchoredFP, anchoredTN int) score.WindowCounts {
	return score.WindowCounts{Span: score.NegativeCounts{FP: spanFP, TN: spanTN}, Anchored: score.NegativeCounts{FP: anchoredFP, TN: anchoredTN}}
}

func leaderboard() TaskLeaderboard {
	cis := map[string]score.RateCIs{"alpha": {Recall: score.Interval{Lo: 0.5, Hi: 1}, FPRate: score.Interval{Lo: 0.05, Hi: 0.4},
		Windows: score.WindowIntervals{Span: score.Interval{Lo: 0.05, Hi: 0.4}, Anchored: score.Interval{Lo: 0.2, Hi: 0.6}}}}
	return NewTaskLeaderboard(floor.TaskEOT, score.Ranking{Standings: standings(), CIs: cis,
		NegativeWindow: score.SpanWindow, LatencyBudgetsMS: []int{250, 500}})
}

// Each system's status, rank, threshold and rates; recall 3/4 (2/4 within
// 250 ms), fp_rate 1/5 (2/5 under the anchored window, which marks it as
// living in the blind spot) and latencies 100, 200, 300 ms (p10 = 100 +
// 0.2·100 by numpy's linear rule, p90 = 200 + 0.8·100) for alpha; null
// where undefined.
func TestTaskLeaderboardJSON(t *testing.T) {
	data, err := json.Marshal(leaderboard())
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Task    string            `json:"task"`
		Window  string            `json:"negative_window"`
		Budgets []int             `json:"latency_budgets_ms"`
		Rows    []json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(data, &got); err != nil || got.Task != "eot" || got.Window != "span" || len(got.Budgets) != 2 || len(got.Rows) != 5 {
		t.Fatalf("%s: %v", data, err)
	}
	none := `"latency_ms":{"p10":null,"p50":null,"p90":null}`
	want := []string{
		`{"rank":1,"system":"alpha","status":"in budget","in_budget_by_window":{"span":true,"anchored":false},"blind_spot":true,"theta":0.5,"n_candidates":7,` +
			`"dev":{"tp":4,"fn":1,"fp":1,"tn":9,"recall":0.8,"fp_rate":0.1,` +
			`"fp_rate_by_window":{"span":{"fp":1,"tn":9,"fp_rate":0.1},"anchored":{"fp":1,"tn":9,"fp_rate":0.1}},` + none + `},` +
			`"test":{"tp":3,"fn":1,"fp":1,"tn":4,"recall":0.75,"recall_within_ms":{"250":0.5,"500":0.75},"fp_rate":0.2,` +
			`"fp_rate_by_window":{"span":{"fp":1,"tn":4,"fp_rate":0.2,"ci95":[0.05,0.4]},"anchored":{"fp":2,"tn":3,"fp_rate":0.4,"ci95":[0.2,0.6]}},` +
			`"latency_ms":{"p10":120,"p50":200,"p90":280},"ci95":{"recall":[0.5,1],"fp_rate":[0.05,0.4]}}}`,
		`{"rank":2,"system":"sub","status":"in budget","in_budget_by_window":{"span":true,"anchored":true},"blind_spot":false,"theta":null,"n_candidates":0,` +
			`"dev":{"tp":1,"fn":1,"fp":0,"tn":2,"recall":0.5,"fp_rate":0,` +
			`"fp_rate_by_window":{"span":{"fp":0,"tn":2,"fp_rate":0},"anchored":{"fp":0,"tn":2,"fp_rate":0}},` + none + `},` +
			`"test":{"tp":1,"fn":3,"fp":0,"tn":2,"recall":0.25,"recall_within_ms":{"250":0,"500":0},"fp_rate":0,` +
			`"fp_rate_by_window":{"span":{"fp":0,"tn":2,"fp_rate":0},"anchored":{"fp":0,"tn":2,"fp_rate":0}},` +
			`"latency_ms":{"p10":640,"p50":640,"p90":640}}}`,
		`{"rank":null,"system":"beta","status":"out of budget","in_budget_by_window":{"span":false,"anchored":false},"blind_spot":false,"theta":0.25,"n_candidates":3,` +
			`"dev":{"tp":1,"fn":1,"fp":3,"tn":7,"recall":0.5,"fp_rate":0.3,` +
			`"fp_rate_by_window":{"span":{"fp":3,"tn":7,"fp_rate":0.3},"anchored":{"fp":4,"tn":6,"fp_rate":0.4}},` + none + `},` +
			`"test":{"tp":0,"fn":4,"fp":0,"tn":5,"recall":0,"recall_within_ms":{"250":0,"500":0},"fp_rate":0,` +
			`"fp_rate_by_window":{"span":{"fp":0,"tn":5,"fp_rate":0},"anchored":{"fp":1,"tn":4,"fp_rate":0.2}},` + none + `}}`,
		`{"rank":null,"system":"gamma","status":"not supported","in_budget_by_window":{"span":false,"anchored":false},"blind_spot":false,"theta":null,"n_candidates":0,"dev":null,"test":null}`,
		`{"rank":null,"system":"delta","status":"no operating point","in_budget_by_window":{"span":false,"anchored":false},"blind_spot":false,"theta":null,"n_candidates":5,"dev":null,"test":null}`,
	}
	for i, w := range want {
		if string(got.Rows[i]) != w {
			t.Errorf("row %d:\n%s\nwant\n%s", i, got.Rows[i], w)
		}
	}
}

// The JSON shape reads back: null is NaN, numbers are themselves.
func TestNumRoundTrips(t *testing.T) {
	var back TaskLeaderboard
	data, err := json.Marshal(leaderboard())
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	r := back.Rows[0]
	if *r.Rank != 1 || r.Theta != 0.5 || r.Test.Recall != 0.75 || r.Test.LatencyMS.P90 != 280 || r.Test.CI95.FPRate[1] != 0.4 ||
		r.Test.RecallWithinMS.At(250) != 0.5 || r.Test.FPRateByWindow.Anchored.CI95[1] != 0.6 || !r.BlindSpot {
		t.Errorf("alpha read back as %+v %+v", r, *r.Test)
	}
	if !math.IsNaN(float64(back.Rows[1].Theta)) || !math.IsNaN(float64(back.Rows[0].Dev.LatencyMS.P50)) {
		t.Error("null did not read back as NaN")
	}
	var n Num
	if err := n.UnmarshalJSON([]byte(`"0.5"`)); err == nil {
		t.Error("a string was read as a number")
	}
	if b, _ := Num(math.Inf(-1)).MarshalJSON(); string(b) != "null" {
		t.Errorf("-Inf is %s", b)
	}
}

// The table shows rank, θ to four decimals, rates to three, the test
// rates with their intervals when bootstrapped, recall within each
// latency budget, fp_rate under both windows, the median latency in whole
// ms, a system in the blind spot marked and explained, and dashes where
// there is nothing.
func TestTaskLeaderboardTable(t *testing.T) {
	lb := leaderboard()
	tb := lb.Table()
	if tb.Title != "EOT leaderboard (negative window: span)" || tb.Labels != 2 || tb.Caption != BlindSpotCaption {
		t.Errorf("title %q, labels %d, caption %q", tb.Title, tb.Labels, tb.Caption)
	}
	if tb.Header[6] != "recall ≤ 250/500 ms" || tb.Header[7] != "test fp span" || tb.Header[8] != "test fp anchored" {
		t.Errorf("header %q", tb.Header)
	}
	want := [][]string{
		{"1", "alpha", "0.5000", "0.800", "0.100", "0.750 [0.500, 1.000]", "0.500/0.750", "0.200 [0.050, 0.400]", "0.400 [0.200, 0.600]", "200", "in budget · blind spot"},
		{"2", "sub", "—", "0.500", "0.000", "0.250", "0.000/0.000", "0.000", "0.000", "640", "in budget"},
		{"—", "beta", "0.2500", "0.500", "0.300", "0.000", "0.000/0.000", "0.000", "0.200", "—", "out of budget"},
		{"—", "gamma", "—", "—", "—", "—", "—", "—", "—", "—", "not supported"},
		{"—", "delta", "—", "—", "—", "—", "—", "—", "—", "—", "no operating point"},
	}
	assertRows(t, tb.Rows, want)
}

// CSV rows carry full precision, intervals in their own columns and
// empty cells for what is undefined, one column per header name.
func TestTaskLeaderboardCSVRows(t *testing.T) {
	lb := leaderboard()
	want := [][]string{
		{"eot", "1", "alpha", "in budget", "true", "0.5", "0.8", "0.1", "0.75", "0.5", "1", "0.5", "0.75", "0.2", "0.05", "0.4",
			"0.2", "0.05", "0.4", "0.4", "0.2", "0.6", "200", "3", "1", "1", "4"},
		{"eot", "2", "sub", "in budget", "false", "", "0.5", "0", "0.25", "", "", "0", "0", "0", "", "",
			"0", "", "", "0", "", "", "640", "1", "3", "0", "2"},
		{"eot", "", "beta", "out of budget", "false", "0.25", "0.5", "0.3", "0", "", "", "0", "0", "0", "", "",
			"0", "", "", "0.2", "", "", "", "0", "4", "0", "5"},
		{"eot", "", "gamma", "not supported", "false", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""},
		{"eot", "", "delta", "no operating point", "false", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""},
	}
	rows := lb.CSVRows()
	assertRows(t, rows, want)
	header := CSVHeader(lb.LatencyBudgetsMS)
	if header[11] != "test_recall_within_250_ms" || header[12] != "test_recall_within_500_ms" {
		t.Errorf("header %q", header)
	}
	for i, r := range rows {
		if len(r) != len(header) {
			t.Errorf("row %d has %d cells for %d columns", i, len(r), len(header))
		}
	}
}

// Paired comparisons are signed to three decimals with their interval
// and a four-decimal p; an undefined difference is a dash.
func TestPairedTable(t *testing.T) {
	budgets := []int{500}
	lb := TaskLeaderboard{Task: floor.TaskINT, LatencyBudgetsMS: budgets}
	lb.AddPaired(score.PairedComparison{A: "alpha", B: "beta",
		Recall:       score.Difference{Delta: 0.25, CI: score.Interval{Lo: -0.125, Hi: 0.5}, P: 0.0312},
		FPRate:       score.Difference{Delta: -0.05, CI: score.Interval{Lo: -0.1, Hi: 0}, P: 1},
		RecallWithin: []score.Difference{{Delta: 0.125, CI: score.Interval{Lo: 0, Hi: 0.25}, P: 0.05}}}, budgets)
	nan := math.NaN()
	lb.AddPaired(score.PairedComparison{A: "alpha", B: "gamma",
		Recall:       score.Difference{Delta: nan, CI: score.Interval{Lo: nan, Hi: nan}, P: nan},
		FPRate:       score.Difference{Delta: 0, CI: score.Interval{Lo: 0, Hi: 0}, P: 1},
		RecallWithin: []score.Difference{{Delta: nan, CI: score.Interval{Lo: nan, Hi: nan}, P: nan}}}, budgets)
	tb := lb.PairedTable()
	if !strings.HasPrefix(tb.Title, "INT paired comparisons") {
		t.Errorf("title %q", tb.Title)
	}
	assertRows(t, tb.Rows, [][]string{
		// A value that rounds to zero prints unsigned (report.Signed).
		{"alpha", "beta", "+0.250", "[-0.125, +0.500]", "0.0312", "+0.125", "-0.050", "[-0.100, 0.000]", "1.0000"},
		{"alpha", "gamma", "—", "—", "—", "—", "0.000", "[0.000, 0.000]", "1.0000"},
	})
	data, err := json.Marshal(lb.Paired[1])
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":"alpha","b":"gamma","recall":{"delta":null,"ci95":[null,null],"p":null},` +
		`"recall_within_ms":[{"budget_ms":500,"delta":null,"ci95":[null,null],"p":null}],"fp_rate":{"delta":0,"ci95":[0,0],"p":1}}`; string(data) != want {
		t.Errorf("paired JSON %s, want %s", data, want)
	}
}

// The helpers format what the command-line tables print.
func TestRateFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Rate(2.0 / 3), "0.667"},
		{Rate(math.NaN()), "—"},
		{Rate(math.Inf(1)), "—"},
		{Latencies(score.Latency{P10: 120.4, P50: 200.5, P90: 279.6}), "120/200/280"},
		{Latencies(score.Latency{P10: math.NaN(), P50: math.NaN(), P90: math.NaN()}), "—"},
		{RateWithCI(0.5, score.Interval{Lo: 0.25, Hi: 0.75}), "0.500 [0.250, 0.750]"},
		{RateWithCI(0.5, score.Interval{Lo: math.NaN(), Hi: math.NaN()}), "0.500"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}

func assertRows(t *testing.T, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d:\n%q\nwant\n%q", i, got[i], want[i])
		}
	}
}

// TurnBench's file lists models by test EOT recall (ties by name, a model
// without EOT last), with rates rounded to six decimals as Python prints
// them, and an unattempted task as nulls without dev_fp_rate.
func TestTurnBenchLeaderboard(t *testing.T) {
	eot := func(sys string, test, dev score.Counts) *score.TaskEvaluation {
		return &score.TaskEvaluation{System: sys, Task: floor.TaskEOT, HasOperatingPoint: true, Test: test, Dev: dev}
	}
	evals := []*score.TaskEvaluation{
		eot("sysB", score.Counts{TP: 1, FN: 1, FP: 0, TN: 2, LatenciesMS: []float64{100}}, score.Counts{FP: 1, TN: 3}),
		{System: "sysD", Task: floor.TaskINT, HasOperatingPoint: true, Test: score.Counts{TP: 1, TN: 1}},
		eot("sysA", score.Counts{TP: 1, FN: 1, FP: 0, TN: 2, LatenciesMS: []float64{90}}, score.Counts{TN: 1}),
		{System: "sysA", Task: floor.TaskINT, Candidates: 4},
		eot("sysC", score.Counts{TP: 2, FN: 0, FP: 1, TN: 2, LatenciesMS: []float64{70, 50}}, score.Counts{TN: 4}),
	}
	lb := NewTurnBenchLeaderboard("tb", score.DefaultParams(), evals)
	var names []string
	for _, m := range lb.Models {
		names = append(names, m.Model)
	}
	if strings.Join(names, " ") != "sysC sysA sysB sysD" {
		t.Fatalf("order %v, want sysC (recall 1), sysA and sysB (0.5, by name), sysD (no EOT)", names)
	}

	// The first model's file, whole: recall 2/2, fp_rate 1/3 to six
	// decimals, latencies 50 and 70 ms (p10 = 50 + 0.1·20, p90 = 50 + 0.9·20).
	one := NewTurnBenchLeaderboard("tb", score.DefaultParams(), evals[4:])
	var b bytes.Buffer
	if err := one.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := `{
  "split": "test",
  "dataset": "tb",
  "fp_budget": 0.1,
  "test_fp_bound": 0.15,
  "models": [
    {
      "model": "sysC",
      "eot": {
        "recall": 1.0,
        "fp_rate": 0.333333,
        "latency_ms": {
          "p10": 52.0,
          "p50": 60.0,
          "p90": 68.0
        },
        "dev_fp_rate": 0.0
      },
      "int": {
        "recall": null,
        "fp_rate": null,
        "latency_ms": {
          "p10": null,
          "p50": null,
          "p90": null
        }
      }
    }
  ]
}
`
	if b.String() != want {
		t.Errorf("TurnBench file:\n%s\nwant\n%s", b.String(), want)
	}
}

// An in-budget system none of whose test predictions counts anywhere (no
// match, no false positive under either window) keeps the protocol's rank
// and says it never fires; one that fires only under the anchored window
// does fire.
func TestNeverFiringSystemSaysSo(t *testing.T) {
	mute := func(name string, anchoredFP int) score.Standing {
		return score.Standing{Rank: 1, TaskEvaluation: &score.TaskEvaluation{System: name, Task: floor.TaskINT, Candidates: 2,
			HasOperatingPoint: true, InBudget: true, InBudgetUnder: score.WindowBudgets{Span: true, Anchored: true}, Theta: 0.9,
			Test: score.Counts{FN: 4, TN: 5, Windows: windows(0, 5, anchoredFP, 5-anchoredFP)}}}
	}
	lb := NewTaskLeaderboard(floor.TaskINT, score.Ranking{Standings: []score.Standing{mute("quiet", 0), mute("anchored-only", 1)}, NegativeWindow: score.SpanWindow})
	for i, want := range []string{StatusNeverFires, StatusInBudget} {
		if row := lb.Rows[i]; row.Status != want || row.Rank == nil || *row.Rank != 1 {
			t.Errorf("%s: status %q rank %v, want %q ranked", row.System, row.Status, row.Rank, want)
		}
	}
}
