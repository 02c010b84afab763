//go:build !floorbench_light

package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/temporalclient"
)

func nextRun(s temporalclient.ScheduleState) string {
	if s.Paused {
		return "none (paused)"
	}
	if len(s.Next) == 0 {
		return "none"
	}
	return s.Next[0].UTC().Format(time.RFC3339)
}

func newScheduleLsCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{Use: "ls", Short: "List the schedules: when each runs, whether paused, its next run", Args: cobra.NoArgs,
		Example: "  floorbench schedule ls\n  floorbench schedule ls -o json"}
	return scheduleCommand(cmd, &output, func(ctx context.Context, cl temporalclient.Client, _ store.Store, _ []string) error {
		list, err := temporalclient.ListSchedules(ctx, cl)
		if err != nil {
			return err
		}
		for i := range list {
			list[i] = list[i].Masked()
		}
		if output == "json" {
			return writeJSON(cmd.OutOrStdout(), list)
		}
		t := &report.Table{Header: []string{"name", "when", "state", "next run", "runs", "baseline"}, Labels: 3}
		for _, s := range list {
			t.Rows = append(t.Rows, []string{s.Name, when(s.ScheduleSettings), state(s), nextRun(s), strconv.Itoa(s.Actions), s.Baseline})
		}
		return t.Text(cmd.OutOrStdout())
	})
}

func when(s nightly.Settings) string {
	if s.Cron != "" {
		return "cron " + s.Cron
	}
	return "every " + s.Every.String()
}

func state(s temporalclient.ScheduleState) string {
	if s.Paused {
		return "paused"
	}
	return "active"
}

// scheduleView is what schedule show prints: the schedule and its runs.
type scheduleView struct {
	temporalclient.ScheduleState
	Runs []nightly.RunView `json:"runs"`
}

// showRuns is how many of the latest runs schedule show lists.
const showRuns = 10

func newScheduleShowCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:     "show NAME",
		Short:   "Show a schedule's settings and its last runs: time, bundle, code version, verdicts, notification",
		Example: "  floorbench schedule show nightly\n  floorbench schedule show nightly -o json",
		Args:    cobra.ExactArgs(1),
	}
	return scheduleCommand(cmd, &output, func(ctx context.Context, cl temporalclient.Client, st store.Store, args []string) error {
		s, err := temporalclient.DescribeSchedule(ctx, cl, args[0])
		if err != nil {
			return err
		}
		runs, err := nightly.Runs(ctx, st, args[0])
		if err != nil {
			return err
		}
		if len(runs) > showRuns {
			runs = runs[len(runs)-showRuns:]
		}
		v := scheduleView{s.Masked(), runs}
		if output == "json" {
			return writeJSON(cmd.OutOrStdout(), v)
		}
		return printSchedule(cmd.OutOrStdout(), v)
	})
}

func printSchedule(w io.Writer, v scheduleView) error {
	s := v.ScheduleState
	paused := state(s)
	if s.Paused && s.Note != "" {
		paused += " (" + s.Note + ")"
	}
	fmt.Fprintf(w, "schedule %s: %s\n", s.Name, paused)
	fmt.Fprintf(w, "  when      %s UTC; overlap %s; catch-up window %s\n", when(s.ScheduleSettings), s.Overlap, s.CatchupWindow)
	fmt.Fprintf(w, "  spec      %s (stored as %s)\n", s.SpecFile, s.SpecKey)
	fmt.Fprintf(w, "  baseline  %s; tolerance %s\n", s.Baseline, report.Fixed(s.Tolerance, 3))
	if s.Notify != "" {
		fmt.Fprintf(w, "  notify    %s\n", s.Notify)
	}
	fmt.Fprintf(w, "  next run  %s\n", nextRun(s))
	fmt.Fprintf(w, "  started   %d run(s); %d skipped (overlap); %d missed (catch-up window)\n", s.Actions, s.SkippedOverlap, s.MissedCatchup)
	for _, r := range s.Recent {
		if r.State != "completed" {
			fmt.Fprintf(w, "  %-9s %s (%s)\n", r.State, r.WorkflowID, r.Scheduled.UTC().Format(time.RFC3339))
		}
	}
	if len(v.Runs) == 0 {
		fmt.Fprintln(w, "no finished runs")
		return nil
	}
	t := &report.Table{Header: []string{"scheduled", "bundle", "code", "baseline", "verdicts", "notify"}, Labels: 6}
	for _, r := range v.Runs {
		verdicts := counts(r.Counts)
		if r.Error != "" {
			verdicts = "FAILED: " + r.Error
		}
		t.Rows = append(t.Rows, []string{r.Scheduled, orDash(r.BundleID), r.CodeVersion, orDash(r.Baseline), verdicts, notification(r.Notification)})
	}
	fmt.Fprintln(w)
	return t.Text(w)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func counts(c map[compare.Outcome]int) string {
	var parts []string
	for _, o := range compare.Outcomes {
		if c[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c[o], o))
		}
	}
	return orDash(strings.Join(parts, ", "))
}

func notification(n *nightly.Notification) string {
	switch {
	case n == nil:
		return "-"
	case n.OK:
		return "sent"
	}
	return fmt.Sprintf("FAILED after %d attempts: %s", n.Attempts, n.Error)
}
