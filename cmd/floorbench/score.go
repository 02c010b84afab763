package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

func init() { subcommands = append(subcommands, newScoreCommand) }

type scoreOptions struct {
	gold, predictions, output string
	attributes                string
	by                        []string
	bootstrap                 int
	seed                      uint64
	strictGold                bool
	params                    score.Params
	limits                    limits.Limits
}

func newScoreCommand() *cobra.Command {
	var o scoreOptions
	cmd := &cobra.Command{
		Use:   "score --gold G.json --predictions P.json",
		Short: "Score a submission of EOT and interruption times against a gold artifact",
		Long: `Score matches each speaker's predictions to the gold (docs/protocol.md#matching): every
positive anchor claims the earliest unclaimed prediction in its window, every
negative span that fires is one false positive. It prints per-conversation
rows and the aggregate (counts summed, latencies pooled), and with
--bootstrap, 95% conversation-bootstrap intervals of recall and fp_rate.
fp_rate is given under both negative windows (span and anchored,
docs/protocol.md#negative-window; fp and tn count under --negative-window),
and recall within each --latency-budgets budget.
-o md, csv and latex print the same tables as Markdown, CSV (tables
separated by a blank line) or LaTeX.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.limits = commandLimits(cmd)
			return runScore(cmd.OutOrStdout(), cmd.Flags(), &o)
		},
	}
	cmd.Flags().StringVar(&o.gold, "gold", "", "gold artifact (TurnBench gold export format)")
	cmd.Flags().StringVar(&o.predictions, "predictions", "", "submission JSON")
	cmd.Flags().IntVar(&o.bootstrap, "bootstrap", 0, "conversation-bootstrap resamples for 95% intervals (0: none)")
	cmd.Flags().Uint64Var(&o.seed, "seed", 0, "bootstrap seed")
	cmd.Flags().StringVar(&o.attributes, "attributes", "", `per-conversation attributes JSON: {"<id>": {"<name>": value}}`)
	cmd.Flags().StringSliceVar(&o.by, "by", nil, "attributes to break results down by (needs --attributes)")
	windowFlags(cmd.Flags(), &o.params)
	strictGoldFlag(cmd.Flags(), &o.strictGold)
	outputFlag(cmd, &o.output, resultFormats)
	_ = cmd.MarkFlagRequired("gold")
	_ = cmd.MarkFlagRequired("predictions")
	return cmd
}

// scoreResult is the JSON shape of `score -o json`.
type scoreResult struct {
	Params        score.Params          `json:"params"`
	Bootstrap     *bootstrapSpec        `json:"bootstrap,omitempty"`
	EOT           report.TaskMetrics    `json:"eot"`
	INT           report.TaskMetrics    `json:"int"`
	Breakdowns    *taskBreakdowns       `json:"breakdowns,omitempty"`
	Conversations []conversationMetrics `json:"conversations"`
}

// taskBreakdowns are each task's results grouped by every --by attribute,
// in the breakdown shape bundles use.
type taskBreakdowns struct {
	EOT []report.Breakdown `json:"eot"`
	INT []report.Breakdown `json:"int"`
}

type bootstrapSpec struct {
	Resamples int    `json:"resamples"`
	Seed      uint64 `json:"seed"`
}

type conversationMetrics struct {
	ID  string             `json:"conversation_id"`
	EOT report.TaskMetrics `json:"eot"`
	INT report.TaskMetrics `json:"int"`
}

func runScore(stdout io.Writer, fs *pflag.FlagSet, o *scoreOptions) error {
	if err := checkBootstrap(o.bootstrap, o.limits); err != nil {
		return err
	}
	if len(o.by) > 0 && o.attributes == "" {
		return fmt.Errorf("--by needs --attributes")
	}
	gold, err := readGold(o.gold, o.limits, o.strictGold)
	if err != nil {
		return err
	}
	windowsFromGold(fs, &o.params, gold.TauPre, gold.TauMax)
	if err := o.params.Validate(o.limits); err != nil {
		return err
	}
	sub, err := score.ReadSubmission(o.predictions, o.limits)
	if err != nil {
		return err
	}
	rows, err := score.ScoreSubmission(gold, sub, o.params)
	if err != nil {
		return fmt.Errorf("%s: %w", o.predictions, err)
	}
	res := scoreResult{Params: o.params}
	budgets := o.params.LatencyBudgetsMS
	perTask := map[floor.Task][]score.Counts{}
	for _, r := range rows {
		res.Conversations = append(res.Conversations, conversationMetrics{r.ID, report.Metrics(r.EOT, budgets), report.Metrics(r.INT, budgets)})
		for _, t := range floor.Tasks {
			perTask[t] = append(perTask[t], *r.Task(t))
		}
	}
	var resamples *score.Resamples
	if o.bootstrap > 0 {
		res.Bootstrap = &bootstrapSpec{o.bootstrap, o.seed}
		resamples = score.NewResamples(len(rows), o.bootstrap, o.seed)
	}
	var cis = map[floor.Task]score.RateCIs{}
	for _, t := range floor.Tasks {
		m := report.Metrics(score.Sum(perTask[t]), budgets)
		if resamples != nil {
			cis[t] = resamples.CIs(perTask[t])
			m = m.WithCI(cis[t])
		}
		if t == floor.TaskEOT {
			res.EOT = m
		} else {
			res.INT = m
		}
	}
	if res.Breakdowns, err = breakdowns(o, rows, perTask); err != nil {
		return err
	}
	if o.output == "json" {
		var out bytes.Buffer
		if err := writeJSON(&out, res); err != nil {
			return err
		}
		_, err = out.WriteTo(stdout)
		return err
	}
	per, agg := scoreTables(o, rows, perTask, cis)
	parts := []resultPart{tablePart(per), tablePart(agg)}
	for i := 0; res.Breakdowns != nil && i < len(res.Breakdowns.EOT); i++ {
		parts = append(parts, tablePart(breakdownTable(&res.Breakdowns.EOT[i], &res.Breakdowns.INT[i])))
	}
	return writeResult(stdout, o.output, parts...)
}

// scoreTables are the per-conversation table and the aggregate table.
func scoreTables(o *scoreOptions, rows []score.ConversationCounts, perTask map[floor.Task][]score.Counts, cis map[floor.Task]score.RateCIs) (per, agg *report.Table) {
	per = &report.Table{
		Title:  fmt.Sprintf("%s — per conversation", o.predictions),
		Header: []string{"convo", "EOT recall", "EOT fp", "EOT lat p10/50/90", "INT recall", "INT fp", "INT lat p10/50/90"},
	}
	for _, r := range rows {
		per.Rows = append(per.Rows, []string{r.ID,
			report.Rate(r.EOT.Recall()), report.Rate(r.EOT.FPRate()), report.Latencies(r.EOT.Latency()),
			report.Rate(r.INT.Recall()), report.Rate(r.INT.FPRate()), report.Latencies(r.INT.Latency())})
	}
	budgets := o.params.LatencyBudgetsMS
	agg = &report.Table{
		Title: fmt.Sprintf("%s — aggregate over %d conversations (negative window: %s)", o.predictions, len(rows), o.params.NegativeWindow),
		Header: []string{"task", "recall", report.RecallWithinHeader(budgets), "fp_rate span", "fp_rate anchored", "lat ms p10/50/90",
			"tp", "fn", "fp", "tn"},
	}
	for _, t := range floor.Tasks {
		c := score.Sum(perTask[t])
		m := report.Metrics(c, budgets)
		recall := report.Rate(c.Recall())
		fp := []string{report.Rate(c.UnderWindow(score.SpanWindow).FPRate()), report.Rate(c.UnderWindow(score.AnchoredWindow).FPRate())}
		if ci, ok := cis[t]; ok {
			recall = report.RateWithCI(c.Recall(), ci.Recall)
			for i, w := range score.NegativeWindows {
				fp[i] = report.RateWithCI(c.UnderWindow(w).FPRate(), ci.Windows.Under(w))
			}
		}
		agg.Rows = append(agg.Rows, []string{taskLabel(t), recall, m.RecallWithinMS.Cell(), fp[0], fp[1], report.Latencies(c.Latency()),
			fmt.Sprint(c.TP), fmt.Sprint(c.FN), fmt.Sprint(c.FP), fmt.Sprint(c.TN)})
	}
	if len(cis) > 0 {
		agg.Caption = fmt.Sprintf("[lo, hi]: 95%% conversation-bootstrap interval, %d resamples, seed %d", o.bootstrap, o.seed)
	}
	return per, agg
}

func taskLabel(t floor.Task) string {
	if t == floor.TaskINT {
		return "INT"
	}
	return "EOT"
}

// breakdowns groups the per-conversation counts by each --by attribute.
func breakdowns(o *scoreOptions, rows []score.ConversationCounts, perTask map[floor.Task][]score.Counts) (*taskBreakdowns, error) {
	if len(o.by) == 0 {
		return nil, nil
	}
	attrs, err := score.ReadAttributes(o.attributes, o.limits)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	out := &taskBreakdowns{}
	for _, name := range o.by {
		values, err := attrs.Values(ids, name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.attributes, err)
		}
		out.EOT = append(out.EOT, report.NewBreakdown(name, score.Breakdown(perTask[floor.TaskEOT], values, o.bootstrap, o.seed), o.params.LatencyBudgetsMS))
		out.INT = append(out.INT, report.NewBreakdown(name, score.Breakdown(perTask[floor.TaskINT], values, o.bootstrap, o.seed), o.params.LatencyBudgetsMS))
	}
	return out, nil
}

// breakdownTable shows one attribute's groups with both tasks side by
// side (eot and in group the same conversations by the same values).
func breakdownTable(eot, in *report.Breakdown) *report.Table {
	t := &report.Table{
		Title:  "by " + eot.Attribute,
		Header: []string{eot.Attribute, "n", "EOT recall", "EOT fp", "INT recall", "INT fp"},
	}
	cell := func(m report.TaskMetrics, recall bool) string {
		v := m.FPRate
		if recall {
			v = m.Recall
		}
		if m.CI95 == nil {
			return report.Rate(float64(v))
		}
		iv := m.CI95.FPRate
		if recall {
			iv = m.CI95.Recall
		}
		return report.RateWithCI(float64(v), score.Interval{Lo: float64(iv[0]), Hi: float64(iv[1])})
	}
	for i, g := range eot.Groups {
		t.Rows = append(t.Rows, []string{g.Value, fmt.Sprint(g.Conversations),
			cell(g.Metrics, true), cell(g.Metrics, false), cell(in.Groups[i].Metrics, true), cell(in.Groups[i].Metrics, false)})
	}
	return t
}
