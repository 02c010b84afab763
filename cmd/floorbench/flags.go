package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
)

// Formats of -o/--output (docs/cli.md#output-formats). A command whose
// output is a result (scores, rankings, a corpus's composition) offers
// resultFormats; the others (listings, states, what was written) offer
// statusFormats.
var (
	statusFormats = []string{"table", "json"}
	resultFormats = []string{"text", "json", "md", "csv", "latex"}
)

// outputFlag adds -o/--output to cmd: one of formats, the first by
// default. A value outside formats is refused while the flags are parsed,
// with the flag, the value and the formats in one line. "table" is also
// accepted where "text" is, and stored as "text", so that scripts written
// when every command had table and json keep working.
func outputFlag(cmd *cobra.Command, dst *string, formats []string) {
	*dst = formats[0]
	v := outputValue{dst, formats}
	cmd.Flags().VarP(v, "output", "o", "output format: "+v.choices())
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

// outputValue is the value of -o: one of formats.
type outputValue struct {
	dst     *string
	formats []string
}

func (v outputValue) String() string { return *v.dst }
func (v outputValue) Type() string   { return "format" }

func (v outputValue) Set(s string) error {
	if s == "table" && slices.Contains(v.formats, "text") {
		s = "text"
	}
	if !slices.Contains(v.formats, s) {
		return fmt.Errorf("want %s", v.choices())
	}
	*v.dst = s
	return nil
}

// choices names the formats as a sentence: "text, json, md, csv or latex".
func (v outputValue) choices() string {
	n := len(v.formats)
	return strings.Join(v.formats[:n-1], ", ") + " or " + v.formats[n-1]
}

// windowFlags adds the matching windows, the negative window and the
// latency budgets (docs/protocol.md#constants) to fs and sets every other
// protocol constant of p to its published default. Commands that match
// predictions to gold but never pick a threshold (score) register only
// these.
func windowFlags(fs *pflag.FlagSet, p *score.Params) {
	d := score.DefaultParams()
	*p = d
	fs.Float64Var(&p.TauPre, "tau-pre", d.TauPre, "matching tolerance before an anchor or span, in seconds; when not given, the gold's own value if it records one")
	fs.Float64Var(&p.TauMax, "tau-max", d.TauMax, "latency deadline after an anchor, in seconds; when not given, the gold's own value if it records one")
	fs.Var(negativeWindowValue{&p.NegativeWindow}, "negative-window",
		"where a prediction fires a negative span: span ([start − tau_pre, end], the papers' rule) or anchored ([start − tau_pre, max(end, start + tau_max)]); results give fp_rate under both")
	fs.IntSliceVar(&p.LatencyBudgetsMS, "latency-budgets", d.LatencyBudgetsMS, "latency budgets in ms of recall within a budget, ascending (empty: none)")
}

// negativeWindowValue is the value of --negative-window: span or
// anchored, refused while the flags are parsed otherwise.
type negativeWindowValue struct{ dst *score.NegativeWindow }

func (v negativeWindowValue) String() string { return string(*v.dst) }
func (v negativeWindowValue) Type() string   { return "window" }

func (v negativeWindowValue) Set(s string) error {
	w, err := score.ParseNegativeWindow(s)
	if err != nil {
		return err
	}
	*v.dst = w
	return nil
}

// sweepFlags adds what picking a dev operating point reads: the windows,
// the candidate thresholds, the commit rule and the dev budget.
func sweepFlags(fs *pflag.FlagSet, p *score.Params) {
	windowFlags(fs, p)
	d := score.DefaultParams()
	fs.Float64Var(&p.FPBudgetDev, "fp-budget", d.FPBudgetDev, "dev fp_rate budget of an operating point")
	fs.IntVar(&p.Candidates, "n-quantiles", d.Candidates, "quantile levels of the candidate thresholds")
	fs.Float64Var(&p.Refractory, "refractory", d.Refractory, "commit-rule refractory, in seconds")
}

// protocolFlags adds every protocol constant of docs/protocol.md#constants
// to fs, with the published defaults: sweepFlags and the test budget.
func protocolFlags(fs *pflag.FlagSet, p *score.Params) {
	sweepFlags(fs, p)
	fs.Float64Var(&p.FPBudgetTest, "fp-budget-test", score.DefaultParams().FPBudgetTest, "test fp_rate budget of an in-budget system")
}

// windowsFromGold takes the matching windows from the gold artifact unless
// they were given on the command line.
func windowsFromGold(fs *pflag.FlagSet, p *score.Params, tauPre, tauMax float64) {
	if !fs.Changed("tau-pre") {
		p.TauPre = tauPre
	}
	if !fs.Changed("tau-max") {
		p.TauMax = tauMax
	}
}

// checkBootstrap checks --bootstrap: at least 0, at most lim's.
func checkBootstrap(n int, lim limits.Limits) error {
	if n < 0 {
		return fmt.Errorf("--bootstrap %d: must be >= 0", n)
	}
	return lim.CheckResamples("--bootstrap", n)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// strictGoldFlag adds --strict-gold to a command that reads gold.
func strictGoldFlag(fs *pflag.FlagSet, strict *bool) {
	fs.BoolVar(strict, "strict-gold", false, "refuse a gold span that ends at or before its start in gold of any shape (TurnBench's own gold has such spans and its scorer keeps them, so the default keeps them)")
}

// readGold reads a gold file and, when strict, refuses its reversed
// spans, naming the file.
func readGold(path string, lim limits.Limits, strict bool) (*floor.GoldSet, error) {
	g, err := floor.ReadGoldSet(path, lim)
	if err != nil || !strict {
		return g, err
	}
	if err := g.RefuseReversed(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}
