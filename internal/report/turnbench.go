package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/jsonio"
	"github.com/floorbench/floorbench/internal/score"
)

// TurnBenchLeaderboard is the shape of TurnBench's published leaderboard
// file (results/leaderboard-test.json), so that a TurnBench user can compare
// floorbench's ranking with it without glue. The file carries no rank: it
// lists every model by test EOT recall and gives the budgets and each
// task's dev fp_rate, from which a reader applies the budget rule.
type TurnBenchLeaderboard struct {
	Split       string           `json:"split"`
	Dataset     string           `json:"dataset"`
	FPBudget    PyNum            `json:"fp_budget"`
	TestFPBound PyNum            `json:"test_fp_bound"`
	Models      []TurnBenchModel `json:"models"`
}

// TurnBenchModel is one system in TurnBenchLeaderboard.
type TurnBenchModel struct {
	Model string        `json:"model"`
	EOT   TurnBenchTask `json:"eot"`
	INT   TurnBenchTask `json:"int"`
}

// TurnBenchTask is one task of a TurnBenchModel; a nil Test (the task is
// not supported, or a swept system found no dev operating point) is written
// as TurnBench writes a task a model does not attempt: every value null and
// no dev_fp_rate.
type TurnBenchTask struct {
	Test      *score.Counts
	DevFPRate float64
}

// PyNum is a number written as TurnBench writes it: rounded to six decimals
// and printed as Python's json.dumps prints a float; NaN is null.
type PyNum float64

// MarshalJSON implements json.Marshaler.
func (n PyNum) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	// Python's round(x, 6): the correctly rounded six-decimal value.
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 6, 64), 64)
	return []byte(jsonio.PyFloat(r)), nil
}

// turnBenchTaskJSON is TurnBenchTask's JSON; DevFPRate is absent for an
// unattempted task and null when undefined.
type turnBenchTaskJSON struct {
	Recall    PyNum  `json:"recall"`
	FPRate    PyNum  `json:"fp_rate"`
	LatencyMS pyLat  `json:"latency_ms"`
	DevFPRate *PyNum `json:"dev_fp_rate,omitempty"`
}

type pyLat struct {
	P10 PyNum `json:"p10"`
	P50 PyNum `json:"p50"`
	P90 PyNum `json:"p90"`
}

// MarshalJSON implements json.Marshaler.
func (t TurnBenchTask) MarshalJSON() ([]byte, error) {
	nan := PyNum(math.NaN())
	out := turnBenchTaskJSON{nan, nan, pyLat{nan, nan, nan}, nil}
	if t.Test != nil {
		l := t.Test.Latency()
		dev := PyNum(t.DevFPRate)
		out = turnBenchTaskJSON{PyNum(t.Test.Recall()), PyNum(t.Test.FPRate()), pyLat{PyNum(l.P10), PyNum(l.P50), PyNum(l.P90)}, &dev}
	}
	return json.Marshal(out)
}

// NewTurnBenchLeaderboard builds TurnBench's leaderboard of the test split
// from every system's evaluations (any task, any order). fp_budget and
// test_fp_bound are p's dev and test budgets. Models are ordered as
// TurnBench orders its file: by test EOT recall, highest first, a model
// without one last; equal recall by name, TurnBench's discovery order.
func NewTurnBenchLeaderboard(dataset string, p score.Params, evals []*score.TaskEvaluation) *TurnBenchLeaderboard {
	lb := &TurnBenchLeaderboard{Split: "test", Dataset: dataset, FPBudget: PyNum(p.FPBudgetDev), TestFPBound: PyNum(p.FPBudgetTest)}
	index := map[string]int{}
	for _, e := range evals {
		i, ok := index[e.System]
		if !ok {
			i = len(lb.Models)
			index[e.System] = i
			lb.Models = append(lb.Models, TurnBenchModel{Model: e.System})
		}
		task := &lb.Models[i].EOT
		if e.Task == floor.TaskINT {
			task = &lb.Models[i].INT
		}
		if e.HasOperatingPoint {
			*task = TurnBenchTask{Test: &e.Test, DevFPRate: e.Dev.FPRate()}
		}
	}
	eotRecall := func(m TurnBenchModel) float64 {
		if m.EOT.Test == nil || math.IsNaN(m.EOT.Test.Recall()) {
			return -1 // TurnBench sorts an undefined recall as -1
		}
		return m.EOT.Test.Recall()
	}
	slices.SortFunc(lb.Models, func(a, b TurnBenchModel) int {
		return cmp.Or(cmp.Compare(eotRecall(b), eotRecall(a)), cmp.Compare(a.Model, b.Model))
	})
	return lb
}

// Write writes lb as TurnBench's json.dumps(indent=2) does.
func (lb *TurnBenchLeaderboard) Write(w io.Writer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(lb); err != nil {
		return err
	}
	_, err := buf.WriteTo(w)
	return err
}
