//go:build !floorbench_light

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/temporalclient"
)

func newScheduleHistoryCommand() *cobra.Command {
	var output, system, metric string
	cmd := &cobra.Command{
		Use:   "history NAME [--system S] [--metric eot.recall|eot.fp_rate|int.recall|int.fp_rate]",
		Short: "A metric per run of a schedule with its 95% CI, for trend plots",
		Long: `History reads the runs of a schedule from the store: a metric per run and
system, with its 95% interval, and each failed run with its error. A
--system no run evaluated is an error naming the systems the runs have.
When the store holds no run, Temporal (--temporal-address) says whether
the schedule exists: one that has not run yet gives an empty history, a
name that is no schedule an error.`,
		Example: "  floorbench schedule history nightly --system silero --metric eot.recall -o csv > trend.csv",
		Args:    cobra.ExactArgs(1),
	}
	cmd.Flags().StringVar(&system, "system", "", "only this system (default: every system)")
	cmd.Flags().StringVar(&metric, "metric", "eot.recall", "eot.recall, eot.fp_rate, int.recall or int.fp_rate")
	outputFlag(cmd, &output, resultFormats)
	return withServices(cmd, configFlags(cmd), func(sv *services, args []string) error {
		if err := nightly.CheckName(args[0]); err != nil {
			return err
		}
		if err := nightly.CheckMetric(metric); err != nil {
			return err
		}
		st, err := sv.Store()
		if err != nil {
			return err
		}
		points, err := nightly.History(sv.ctx, st, args[0], system, metric)
		if err != nil {
			return err
		}
		if len(points) == 0 {
			// No run in the store: a schedule that has not run yet, or a
			// name that is none (Temporal says which).
			cl, err := sv.Temporal()
			if err != nil {
				return err
			}
			if _, err := temporalclient.DescribeSchedule(sv.ctx, cl, args[0]); err != nil {
				return fmt.Errorf("%w, and the store holds no run of it", err)
			}
		}
		if output == "json" {
			return writeJSON(cmd.OutOrStdout(), points)
		}
		t := &report.Table{Header: []string{"scheduled", "bundle", "corpus", "system", "metric", "value", "ci_lo", "ci_hi", "error"}, Labels: 5}
		for _, p := range points {
			t.Rows = append(t.Rows, []string{p.Scheduled, p.BundleID, p.Corpus, p.System, p.Metric,
				report.Rate(float64(p.Value)), report.Rate(float64(p.Lo)), report.Rate(float64(p.Hi)), p.Error})
		}
		return writeResult(cmd.OutOrStdout(), output, tablePart(t))
	})
}
