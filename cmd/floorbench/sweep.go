package main

import (
	"bytes"
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

func init() { subcommands = append(subcommands, newSweepCommand) }

type sweepOptions struct {
	gold, probs, output string
	strictGold          bool
	params              score.Params
}

func newSweepCommand() *cobra.Command {
	var o sweepOptions
	cmd := &cobra.Command{
		Use:   "sweep --gold G.json --probs probs-eot.json",
		Short: "Sweep a threshold over per-frame probabilities and pick the dev operating point",
		Long: `Sweep commits every score track at each candidate threshold (docs/protocol.md#commit-rule,
docs/protocol.md#candidate-thresholds: 512 quantiles of the pooled non-zero scores united with 0.01..0.99),
scores each against the gold, and picks the operating point: the highest
recall with fp_rate within the budget (the first candidate on a tie), fp_rate
under --negative-window (docs/protocol.md#negative-window). Each row also
gives fp_rate under both windows and recall within each --latency-budgets
budget.
-o md, csv and latex print the same table (csv: the table alone, the
operating point marked in its last column).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			gold, err := readGold(o.gold, commandLimits(cmd), o.strictGold)
			if err != nil {
				return err
			}
			windowsFromGold(cmd.Flags(), &o.params, gold.TauPre, gold.TauMax)
			if err := o.params.Validate(commandLimits(cmd)); err != nil {
				return err
			}
			// The sweep's heap is its input: collect garbage at a quarter
			// of the live heap instead of doubling it, which keeps the
			// peak near the tracks' own size for a few ms of CPU.
			debug.SetGCPercent(25)
			probs, err := score.ReadProbs(o.probs, commandLimits(cmd))
			if err != nil {
				return err
			}
			res, err := runSweep(gold, probs, o.params)
			if err != nil {
				return fmt.Errorf("%s: %w", o.probs, err)
			}
			if o.output != "json" {
				return writeResult(cmd.OutOrStdout(), o.output, sweepParts(o.probs, res, o.params)...)
			}
			var out bytes.Buffer
			if err := writeJSON(&out, res); err != nil {
				return err
			}
			_, err = out.WriteTo(cmd.OutOrStdout())
			return err
		},
	}
	cmd.Flags().StringVar(&o.gold, "gold", "", "gold artifact of the split the probabilities cover")
	cmd.Flags().StringVar(&o.probs, "probs", "", "probability file (probs-eot.json or probs-int.json)")
	sweepFlags(cmd.Flags(), &o.params)
	strictGoldFlag(cmd.Flags(), &o.strictGold)
	outputFlag(cmd, &o.output, resultFormats)
	_ = cmd.MarkFlagRequired("gold")
	_ = cmd.MarkFlagRequired("probs")
	return cmd
}

// sweepRow is the JSON shape of one candidate threshold.
type sweepRow struct {
	Theta          float64             `json:"theta"`
	Recall         report.Num          `json:"recall"`
	RecallWithinMS report.RecallWithin `json:"recall_within_ms,omitempty"`
	FPRate         report.Num          `json:"fp_rate"`
	FPRateByWindow report.WindowRates  `json:"fp_rate_by_window"`
	FalseINT       report.Num          `json:"false_int_rate"`
	TP             int                 `json:"tp"`
	FP             int                 `json:"fp"`
	FN             int                 `json:"fn"`
	TN             int                 `json:"tn"`
	LatencyMS      report.LatencyMS    `json:"latency_ms"`
}

// sweepResult is the JSON shape of `sweep -o json`.
type sweepResult struct {
	Task           floor.Task   `json:"task"`
	Params         score.Params `json:"params"`
	NCandidates    int          `json:"n_candidates"`
	Rows           []sweepRow   `json:"rows"`
	OperatingPoint *sweepRow    `json:"operating_point"`
}

func runSweep(gold *floor.GoldSet, probs *score.ProbsFile, p score.Params) (*sweepResult, error) {
	task := probs.Task
	s, err := score.SweepDevTakingTracks(gold, probs, p)
	if err != nil {
		return nil, err
	}
	res := &sweepResult{Task: task, Params: p, NCandidates: len(s.Rows)}
	latencies := score.RowLatencies(s.Rows)
	for i, r := range s.Rows {
		m := report.MetricsAt(r.Counts, latencies[i], p.LatencyBudgetsMS)
		res.Rows = append(res.Rows, sweepRow{r.Theta, m.Recall, m.RecallWithinMS, m.FPRate, m.FPRateByWindow,
			report.Num(r.FalseINTRate()), m.TP, m.FP, m.FN, m.TN, m.LatencyMS})
	}
	if s.OP >= 0 {
		res.OperatingPoint = &res.Rows[s.OP]
	}
	return res, nil
}

// sweepParts are sweepRowsTable and, under it, the operating point or
// "none in budget" (csv: the table alone, the point marked in it).
func sweepParts(name string, res *sweepResult, p score.Params) []resultPart {
	line := fmt.Sprintf("none in budget: no threshold reaches fp_rate ≤ %g", p.FPBudgetDev)
	if op := res.OperatingPoint; op != nil {
		line = fmt.Sprintf("operating point: θ=%s  recall=%s  fp_rate=%s ≤ %g (%s window)  lat_p50=%s",
			report.Fixed(op.Theta, 4), report.Rate(float64(op.Recall)), report.Rate(float64(op.FPRate)), p.FPBudgetDev, p.NegativeWindow, latencyP50(op.LatencyMS))
	}
	return []resultPart{tablePart(sweepRowsTable(name, res, p)), {lines: []string{line}, joined: true}}
}

// sweepRowsTable holds about twenty evenly spaced rows, the last one and
// the operating point.
func sweepRowsTable(name string, res *sweepResult, p score.Params) *report.Table {
	t := &report.Table{
		Title:  fmt.Sprintf("%s — %s threshold sweep (%d candidates)", name, taskLabel(res.Task), res.NCandidates),
		Header: []string{"θ", "recall", report.RecallWithinHeader(p.LatencyBudgetsMS), "fp span", "fp anchored", "lat ms p10/50/90", "tp", "fp", "fn", "tn", ""},
		Caption: fmt.Sprintf("● operating point = highest recall at fp_rate ≤ %g under the %s negative window (tp, fp, fn and tn under it too); rows subsampled for display, the point is chosen over all candidates",
			p.FPBudgetDev, p.NegativeWindow),
	}
	step := max(1, len(res.Rows)/20)
	for i := range res.Rows {
		r := &res.Rows[i]
		isOP := res.OperatingPoint == r
		if i%step != 0 && i != len(res.Rows)-1 && !isOP {
			continue
		}
		mark := ""
		if isOP {
			mark = "● op"
		}
		t.Rows = append(t.Rows, []string{report.Fixed(r.Theta, 4), report.Rate(float64(r.Recall)), r.RecallWithinMS.Cell(),
			report.Rate(float64(r.FPRateByWindow.Span.FPRate)), report.Rate(float64(r.FPRateByWindow.Anchored.FPRate)), latencyCell(r.LatencyMS), fmt.Sprint(r.TP), fmt.Sprint(r.FP), fmt.Sprint(r.FN), fmt.Sprint(r.TN), mark})
	}
	return t
}

func latencyCell(l report.LatencyMS) string {
	return report.Latencies(score.Latency{P10: float64(l.P10), P50: float64(l.P50), P90: float64(l.P90)})
}

func latencyP50(l report.LatencyMS) string {
	if v := float64(l.P50); v == v {
		return report.Fixed(v, 0) + "ms"
	}
	return report.Undefined
}
