//go:build !floorbench_light

package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/store"
)

func newBundleDiffCommand() *cobra.Command {
	var output string
	var tolerance float64
	var paired bool
	cmd := &cobra.Command{
		Use:   "diff OLD_ID NEW_ID",
		Short: "Compare two bundles system by system; exit non-zero on a regression",
		Long: `Diff compares test recall and fp_rate of every system, corpus and task in
both bundles. A regression is recall lower by more than --tolerance, an
fp_rate higher by more than --tolerance, a system that fell out of the
budget or lost its operating point or test result, or a system, corpus or
task that is gone from NEW_ID. Either id may be a unique prefix of a
bundle id or latest (the newest bundle). Differences in protocol, bootstrap or corpus
content between the bundles are printed on stderr before the verdicts.

With --paired (the default when both bundles scored some of the same test
conversations) the comparison is paired (docs/protocol.md#paired-comparisons):
new minus old recall, recall within each latency budget and fp_rate with
their 95% CIs and p-values from one conversation bootstrap over the
conversations both scored. A regression is then a recall or
recall-within-budget CI wholly below -tolerance, an fp_rate CI wholly above
+tolerance, a system that left the budget or lost its operating point, or
one removed; improved is the mirror; a system with the same inputs and
results is identical, without resampling. --paired=false compares the
point estimates only.

Exit status: 0 no regression, 1 regression, 2 error (a missing bundle, a
bad flag).`,
		Example: `  floorbench bundle diff 3f2a latest
  floorbench bundle diff OLD NEW --tolerance 0.01 -o json`,
		Args: cobra.ExactArgs(2),
	}
	cmd.Flags().Float64Var(&tolerance, "tolerance", compare.DefaultTolerance, "allowed change before a difference counts as a regression")
	cmd.Flags().BoolVar(&paired, "paired", false, "paired bootstrap verdicts with CIs (default: on when the bundles share test conversations)")
	outputFlag(cmd, &output, resultFormats)
	cmd = withStore(cmd, func(ctx context.Context, st store.Store, args []string) error {
		if err := compare.CheckTolerance(tolerance); err != nil {
			return err
		}
		oldID, err := resolveBundleID(ctx, st, args[0])
		if err != nil {
			return err
		}
		newID, err := resolveBundleID(ctx, st, args[1])
		if err != nil {
			return err
		}
		old, err := readResults(ctx, st, oldID)
		if err != nil {
			return err
		}
		cur, err := readResults(ctx, st, newID)
		if err != nil {
			return err
		}
		for _, m := range compare.Mismatches(old, cur) {
			fmt.Fprintln(cmd.ErrOrStderr(), "floorbench: bundles differ:", m)
		}
		if !cmd.Flags().Changed("paired") {
			paired = compare.SharedConversations(old, cur) > 0
		}
		if paired {
			v := compare.Paired(old, cur, compare.PairedOptions{Tolerance: tolerance})
			if err := printVerdict(cmd.OutOrStdout(), v, output); err != nil {
				return err
			}
			if n := v.Regressions(); n > 0 {
				return exitError{1, fmt.Errorf("%d regression(s) from %s to %s", n, oldID, newID)}
			}
			return nil
		}
		d := compare.Diff(old, cur, tolerance)
		if output == "json" {
			err = writeJSON(cmd.OutOrStdout(), d)
		} else {
			err = writeResult(cmd.OutOrStdout(), output, tablePart(diffTable(d)))
		}
		if err != nil {
			return err
		}
		if n := compare.Regressions(d); n > 0 {
			return exitError{1, fmt.Errorf("%d regression(s) from %s to %s", n, oldID, newID)}
		}
		return nil
	})
	return withExitCode(cmd, 2)
}

func diffTable(d []compare.Change) *report.Table {
	t := &report.Table{Header: []string{"corpus", "system", "task", "recall old", "recall new", "fp old", "fp new", "verdict"}, Labels: 3}
	for _, c := range d {
		t.Rows = append(t.Rows, []string{c.Corpus, c.System, string(c.Task), report.Rate(float64(c.OldRecall)), report.Rate(float64(c.NewRecall)),
			report.Rate(float64(c.OldFPRate)), report.Rate(float64(c.NewFPRate)), c.Verdict})
	}
	return t
}

// printVerdict writes a paired verdict: its summary line over its table,
// or verdict.json with -o json.
func printVerdict(w io.Writer, v *compare.Verdict, output string) error {
	if output == "json" {
		return writeJSON(w, v)
	}
	summary := fmt.Sprintf("%s → %s: %s", v.Old, v.New, v.Summary())
	return writeResult(w, output, linesPart(summary), resultPart{table: v.Table(), joined: true})
}
