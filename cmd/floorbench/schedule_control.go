//go:build !floorbench_light

package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/temporalclient"
)

func newSchedulePauseCommand(pause bool) *cobra.Command {
	var output, note string
	verb := map[bool]string{true: "pause", false: "unpause"}[pause]
	cmd := &cobra.Command{
		Use:     verb + " NAME [--note TEXT]",
		Short:   map[bool]string{true: "Pause a schedule: no run is due until it is unpaused", false: "Unpause a paused schedule"}[pause],
		Example: "  floorbench schedule " + verb + " nightly --note \"GPU nodes drained\"",
		Args:    cobra.ExactArgs(1),
	}
	cmd.Flags().StringVar(&note, "note", "", "why, shown by schedule show")
	return scheduleCommand(cmd, &output, func(ctx context.Context, cl temporalclient.Client, _ store.Store, args []string) error {
		if err := temporalclient.PauseSchedule(ctx, cl, args[0], pause, note); err != nil {
			return err
		}
		return printScheduleState(ctx, cmd.OutOrStdout(), cl, args[0], output, verb+"d")
	})
}

// printScheduleState prints a schedule after a change: its state as JSON,
// or one line saying what was done.
func printScheduleState(ctx context.Context, w io.Writer, cl temporalclient.Client, name, output, done string) error {
	s, err := temporalclient.DescribeSchedule(ctx, cl, name)
	if err != nil {
		return err
	}
	if output == "json" {
		return writeJSON(w, s.Masked())
	}
	fmt.Fprintf(w, "schedule %s %s; next run %s\n", name, done, nextRun(s))
	return nil
}

func newScheduleTriggerCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:     "trigger NAME",
		Short:   "Start a run now (skipped while a run of the schedule is running)",
		Example: "  floorbench schedule trigger nightly",
		Args:    cobra.ExactArgs(1),
	}
	return scheduleCommand(cmd, &output, func(ctx context.Context, cl temporalclient.Client, _ store.Store, args []string) error {
		if err := temporalclient.TriggerSchedule(ctx, cl, args[0]); err != nil {
			return err
		}
		return printScheduleState(ctx, cmd.OutOrStdout(), cl, args[0], output, "triggered")
	})
}

func newScheduleBackfillCommand() *cobra.Command {
	var output, from, to string
	cmd := &cobra.Command{
		Use:   "backfill NAME --from TIME --to TIME",
		Short: "Start the runs that were due between two past times, one after another",
		Long: `Backfill starts a run for every time the schedule was due in [--from, --to]
(RFC 3339 times, e.g. 2026-12-01T03:00:00Z), one after another; each is
named and judged as if it had run then, against the run before it. A range
with more runs than limits.backfill_runs (default 500) is refused, naming
how many it would start, and starts none.`,
		Example: "  floorbench schedule backfill nightly --from 2026-11-28T00:00:00Z --to 2026-12-01T00:00:00Z",
		Args:    cobra.ExactArgs(1),
	}
	cmd.Flags().StringVar(&from, "from", "", "start of the range (RFC 3339)")
	cmd.Flags().StringVar(&to, "to", "", "end of the range (RFC 3339)")
	return configuredScheduleCommand(cmd, &output, func(ctx context.Context, cfg config.Config, cl temporalclient.Client, _ store.Store, args []string) error {
		start, err := time.Parse(time.RFC3339, from)
		if err != nil {
			return fmt.Errorf("--from %q: want an RFC 3339 time such as 2026-12-01T03:00:00Z", from)
		}
		end, err := time.Parse(time.RFC3339, to)
		if err != nil {
			return fmt.Errorf("--to %q: want an RFC 3339 time such as 2026-12-02T03:00:00Z", to)
		}
		n, err := temporalclient.BackfillSchedule(ctx, cl, cfg.Namespace, args[0], start, end, cfg.Limits)
		if err != nil {
			return err
		}
		return printScheduleState(ctx, cmd.OutOrStdout(), cl, args[0], output, fmt.Sprintf("backfilled from %s to %s (%d run(s))", from, to, n))
	})
}

func newScheduleDeleteCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:     "delete NAME",
		Short:   "Delete a schedule; its runs, bundles and verdicts stay in the store",
		Example: "  floorbench schedule delete nightly",
		Args:    cobra.ExactArgs(1),
	}
	return scheduleCommand(cmd, &output, func(ctx context.Context, cl temporalclient.Client, _ store.Store, args []string) error {
		if err := temporalclient.DeleteSchedule(ctx, cl, args[0]); err != nil {
			return err
		}
		if output == "json" {
			return writeJSON(cmd.OutOrStdout(), map[string]string{"deleted": args[0]})
		}
		fmt.Fprintf(cmd.OutOrStdout(), "schedule %s deleted\n", args[0])
		return nil
	})
}
