package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

func init() { subcommands = append(subcommands, newLeaderboardCommand) }

type leaderboardOptions struct {
	devGold, testGold string
	systems           []string
	bootstrap         int
	seed              uint64
	format            string
	params            score.Params
}

func newLeaderboardCommand() *cobra.Command {
	var o leaderboardOptions
	cmd := &cobra.Command{
		Use:   "leaderboard --dev-gold D.json --test-gold T.json --system NAME=DEV_PROBS,TEST_PROBS ...",
		Short: "Rank systems: dev operating point, frozen threshold on test, budgets",
		Long: `For every system and task: sweep the dev probabilities, pick the operating
point (highest dev recall with dev fp_rate within --fp-budget), freeze its
threshold, score test with it. Systems with fp_dev and fp_test within their
budgets are ranked by test recall; the others are listed below them, marked
(docs/protocol.md#budgets-and-the-leaderboard). With --bootstrap, test recall and fp_rate get 95%
conversation-bootstrap intervals and every pair of systems a paired
comparison on the same resamples (docs/protocol.md#paired-comparisons).

Each --system is NAME=DEV,TEST with two probability files of one task; give
a system twice (once per task) to rank it on both tasks.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLeaderboard(cmd.OutOrStdout(), &o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.devGold, "dev-gold", "", "gold artifact of the dev split")
	f.StringVar(&o.testGold, "test-gold", "", "gold artifact of the test split")
	f.StringArrayVar(&o.systems, "system", nil, "NAME=DEV_PROBS,TEST_PROBS (repeatable)")
	f.IntVar(&o.bootstrap, "bootstrap", 0, "conversation-bootstrap resamples (0: no intervals)")
	f.Uint64Var(&o.seed, "seed", 0, "bootstrap seed")
	f.StringVar(&o.format, "format", "text", "text, md, csv, latex or json")
	var output string
	f.StringVarP(&output, "output", "o", "", "json: the same as --format json")
	cmd.PreRunE = func(*cobra.Command, []string) error {
		switch output {
		case "":
		case "json":
			o.format = "json"
		case "table":
		default:
			return fmt.Errorf("--output %q: want table or json", output)
		}
		return nil
	}
	protocolFlags(f, &o.params)
	for _, name := range []string{"dev-gold", "test-gold", "system"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

// leaderboardResult is the JSON shape of `leaderboard --format json`.
type leaderboardResult struct {
	Params    score.Params             `json:"params"`
	Bootstrap *bootstrapSpec           `json:"bootstrap,omitempty"`
	Tasks     []report.TaskLeaderboard `json:"tasks"`
}

type systemFiles struct{ name, dev, test string }

func parseSystem(s string) (systemFiles, error) {
	name, files, ok := strings.Cut(s, "=")
	dev, test, ok2 := strings.Cut(files, ",")
	if !ok || !ok2 || name == "" || dev == "" || test == "" {
		return systemFiles{}, fmt.Errorf("--system %q: want NAME=DEV_PROBS,TEST_PROBS", s)
	}
	return systemFiles{name, dev, test}, nil
}

func runLeaderboard(stdout io.Writer, o *leaderboardOptions) error {
	switch o.format {
	case "text", "md", "csv", "latex", "json":
	default:
		return fmt.Errorf("--format %q: want text, md, csv, latex or json", o.format)
	}
	if err := checkBootstrap(o.bootstrap); err != nil {
		return err
	}
	if err := o.params.Validate(); err != nil {
		return err
	}
	devGold, err := floor.ReadGoldSet(o.devGold)
	if err != nil {
		return err
	}
	testGold, err := floor.ReadGoldSet(o.testGold)
	if err != nil {
		return err
	}
	byTask := map[floor.Task][]*score.TaskEvaluation{}
	seen := map[string]bool{}
	for _, s := range o.systems {
		sf, err := parseSystem(s)
		if err != nil {
			return err
		}
		ev, err := evaluateSystem(sf, devGold, testGold, o.params)
		if err != nil {
			return err
		}
		key := sf.name + "/" + string(ev.Task)
		if seen[key] {
			return fmt.Errorf("--system %s: given twice for task %s", sf.name, ev.Task)
		}
		seen[key] = true
		byTask[ev.Task] = append(byTask[ev.Task], ev)
	}
	res := leaderboardResult{Params: o.params}
	var resamples *score.Resamples
	if o.bootstrap > 0 {
		res.Bootstrap = &bootstrapSpec{o.bootstrap, o.seed}
		resamples = score.NewResamples(len(testGold.Conversations), o.bootstrap, o.seed)
	}
	for _, task := range floor.Tasks {
		if evals, ok := byTask[task]; ok {
			res.Tasks = append(res.Tasks, taskLeaderboard(task, evals, resamples))
		}
	}
	var out bytes.Buffer
	if err := renderLeaderboard(&out, &res, o.format); err != nil {
		return err
	}
	_, err = out.WriteTo(stdout)
	return err
}

func evaluateSystem(sf systemFiles, devGold, testGold *floor.GoldSet, p score.Params) (*score.TaskEvaluation, error) {
	dev, err := score.ReadProbs(sf.dev)
	if err != nil {
		return nil, err
	}
	test, err := score.ReadProbs(sf.test)
	if err != nil {
		return nil, err
	}
	return score.Evaluate(sf.name, devGold, testGold, dev, test, p)
}

func taskLeaderboard(task floor.Task, evals []*score.TaskEvaluation, resamples *score.Resamples) report.TaskLeaderboard {
	standings := score.Leaderboard(evals)
	cis := map[string]score.RateCIs{}
	if resamples != nil {
		for _, e := range evals {
			if e.HasOperatingPoint {
				cis[e.System] = resamples.CIs(e.TestByConv)
			}
		}
	}
	lb := report.NewTaskLeaderboard(task, standings, cis)
	if resamples == nil {
		return lb
	}
	for i, a := range standings {
		for _, b := range standings[i+1:] {
			if a.HasOperatingPoint && b.HasOperatingPoint {
				recall, fp := resamples.Paired(a.TestByConv, b.TestByConv)
				lb.AddPaired(a.System, b.System, recall, fp)
			}
		}
	}
	return lb
}

func renderLeaderboard(w io.Writer, res *leaderboardResult, format string) error {
	switch format {
	case "json":
		return writeJSON(w, res)
	case "csv":
		// One CSV table for all tasks, the task a column of its own.
		all := &report.Table{Header: report.CSVHeader}
		for i := range res.Tasks {
			all.Rows = append(all.Rows, res.Tasks[i].CSVRows()...)
		}
		return all.CSV(w)
	}
	for i := range res.Tasks {
		lb := &res.Tasks[i]
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := lb.Table().Write(w, format); err != nil {
			return err
		}
		if len(lb.Paired) > 0 {
			fmt.Fprintln(w)
			if err := lb.PairedTable().Write(w, format); err != nil {
				return err
			}
		}
	}
	return nil
}
