package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

func init() { subcommands = append(subcommands, newLeaderboardCommand) }

type leaderboardOptions struct {
	devGold, testGold string
	strictGold        bool
	systems           []string
	agents            []string
	baselines         string
	dataset           string
	bootstrap         int
	seed              uint64
	format            string
	params            score.Params
	limits            limits.Limits
}

// leaderboardFormats are the values of -o: the result formats and
// TurnBench's leaderboard file.
var leaderboardFormats = append(slices.Clone(resultFormats), "turnbench")

func newLeaderboardCommand() *cobra.Command {
	var o leaderboardOptions
	cmd := &cobra.Command{
		Use:   "leaderboard --dev-gold D.json --test-gold T.json (--system NAME=DEV,TEST ... | --agent NAME=DIR ... | --baselines DIR)",
		Short: "Rank systems: dev operating point, frozen threshold on test, budgets",
		Long: `For every system and task: sweep the dev probabilities, pick the operating
point (highest dev recall with dev fp_rate within --fp-budget), freeze its
threshold, score test with it. Systems with fp_dev and fp_test within their
budgets are ranked by test recall; the others are listed below them, marked
(docs/protocol.md#budgets-and-the-leaderboard). With --bootstrap, test recall and fp_rate get 95%
conversation-bootstrap intervals and every pair of systems a paired
comparison on the same resamples (docs/protocol.md#paired-comparisons).

Systems are ranked under --negative-window (span, the papers' rule, by
default); every row also gives test fp_rate under both windows and recall
within each --latency-budgets budget, and a system in budget under span
but not under anchored is marked "blind spot"
(docs/protocol.md#negative-window).

Each --system is NAME=DEV,TEST with two files of one kind, told apart by
their top-level key: two probability files ("probs") of one task, to be
swept as above (give a system twice, once per task, to rank it on both), or
two submissions ("predictions"), whose times are their operating point on
both tasks: their dev fp_rate is checked against --fp-budget like a swept
system's. A task a test submission makes no prediction for is not
supported: listed as such, never scored as recall 0.

--agent NAME=DIR ranks a seated agent (floorbench agent seat --out DIR) on
DIR/predictions-dev.json and predictions-test.json as a submission: it has
no threshold, and its θ column says "as it behaves"; a task it made no
prediction for (it never barged in) is scored, not "not supported".

--baselines DIR ranks every DIR/NAME/predictions-dev.json with its
predictions-test.json as system NAME (TurnBench's baselines/ layout).

-o turnbench writes TurnBench's leaderboard file (results/leaderboard-test.json):
models by test EOT recall, each task's recall, fp_rate, latency_ms and
dev_fp_rate, null for a task without a result.`,
		Example: `  floorbench leaderboard --dev-gold dev-gold.json --test-gold test-gold.json \
    --baselines turnbench/baselines -o turnbench
  floorbench leaderboard --dev-gold dev-gold.json --test-gold test-gold.json \
    --system mine=dev-probs-eot.json,test-probs-eot.json \
    --system vap=vap/predictions-dev.json,vap/predictions-test.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.limits = commandLimits(cmd)
			return runLeaderboard(cmd.OutOrStdout(), cmd.ErrOrStderr(), &o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.devGold, "dev-gold", "", "gold artifact of the dev split")
	f.StringVar(&o.testGold, "test-gold", "", "gold artifact of the test split")
	f.StringArrayVar(&o.systems, "system", nil, "NAME=DEV,TEST: two probability files or two submissions (repeatable)")
	f.StringArrayVar(&o.agents, "agent", nil, "NAME=DIR: a seated agent's folder (floorbench agent seat --out DIR), ranked on its predictions as it behaves (repeatable)")
	f.StringVar(&o.baselines, "baselines", "", "folder of NAME/predictions-dev.json and NAME/predictions-test.json")
	f.StringVar(&o.dataset, "dataset", "", "dataset name written by -o turnbench (default: the --test-gold path)")
	f.IntVar(&o.bootstrap, "bootstrap", 0, "conversation-bootstrap resamples (0: no intervals)")
	f.Uint64Var(&o.seed, "seed", 0, "bootstrap seed")
	outputFlag(cmd, &o.format, leaderboardFormats)
	// --format was -o's name here before every result command had -o.
	f.Var(f.Lookup("output").Value, "format", "the same as -o")
	_ = f.MarkDeprecated("format", "use -o")
	protocolFlags(f, &o.params)
	strictGoldFlag(f, &o.strictGold)
	for _, name := range []string{"dev-gold", "test-gold"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

// leaderboardResult is the JSON shape of `leaderboard -o json`.
type leaderboardResult struct {
	Params    score.Params             `json:"params"`
	Bootstrap *bootstrapSpec           `json:"bootstrap,omitempty"`
	Tasks     []report.TaskLeaderboard `json:"tasks"`
}

func runLeaderboard(stdout, stderr io.Writer, o *leaderboardOptions) error {
	if err := checkBootstrap(o.bootstrap, o.limits); err != nil {
		return err
	}
	if o.format == "turnbench" && o.bootstrap > 0 {
		return fmt.Errorf("--bootstrap %d: TurnBench's leaderboard file has no intervals (leave out --bootstrap with -o turnbench)", o.bootstrap)
	}
	if len(o.systems) == 0 && len(o.agents) == 0 && o.baselines == "" {
		return fmt.Errorf("no systems: give --system NAME=DEV,TEST, --agent NAME=DIR or --baselines DIR")
	}
	if err := o.params.Validate(o.limits); err != nil {
		return err
	}
	var systems []systemFiles
	for _, s := range o.systems {
		sf, err := parseSystem(s)
		if err != nil {
			return err
		}
		systems = append(systems, sf)
	}
	for _, a := range o.agents {
		sf, err := parseAgent(a)
		if err != nil {
			return err
		}
		systems = append(systems, sf)
	}
	if o.baselines != "" {
		found, err := discoverBaselines(o.baselines, stderr)
		if err != nil {
			return err
		}
		systems = append(systems, found...)
	}
	devGold, err := readGold(o.devGold, o.limits, o.strictGold)
	if err != nil {
		return err
	}
	testGold, err := readGold(o.testGold, o.limits, o.strictGold)
	if err != nil {
		return err
	}
	var all []*score.TaskEvaluation
	byTask := map[floor.Task][]*score.TaskEvaluation{}
	seen := map[string]bool{}
	for _, sf := range systems {
		evals, err := evaluateSystem(sf, devGold, testGold, o.params, o.limits)
		if err != nil {
			return err
		}
		for _, ev := range evals {
			key := sf.name + "/" + string(ev.Task)
			if seen[key] {
				return fmt.Errorf("--system %s: given twice for task %s", sf.name, ev.Task)
			}
			seen[key] = true
			byTask[ev.Task] = append(byTask[ev.Task], ev)
			all = append(all, ev)
		}
	}
	var out bytes.Buffer
	if o.format == "turnbench" {
		dataset := cmp.Or(o.dataset, o.testGold)
		if err := report.NewTurnBenchLeaderboard(dataset, o.params, all).Write(&out); err != nil {
			return err
		}
		_, err = out.WriteTo(stdout)
		return err
	}
	res := leaderboardResult{Params: o.params}
	if o.bootstrap > 0 {
		res.Bootstrap = &bootstrapSpec{o.bootstrap, o.seed}
	}
	for _, task := range floor.Tasks {
		if evals, ok := byTask[task]; ok {
			res.Tasks = append(res.Tasks, report.NewTaskLeaderboard(task, score.Rank(evals, o.params, o.bootstrap, o.seed)))
		}
	}
	if err := renderLeaderboard(&out, &res, o.format); err != nil {
		return err
	}
	_, err = out.WriteTo(stdout)
	return err
}

func renderLeaderboard(w io.Writer, res *leaderboardResult, format string) error {
	switch format {
	case "json":
		return writeJSON(w, res)
	case "csv":
		// One CSV table for all tasks, the task a column of its own.
		all := &report.Table{Header: report.CSVHeader(res.Params.LatencyBudgetsMS)}
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
