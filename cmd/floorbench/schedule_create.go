//go:build !floorbench_light

package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/temporalclient"
)

func newScheduleCreateCommand() *cobra.Command {
	var output, file, cron, baseline, notify string
	var every, catchup time.Duration
	var tolerance float64
	cmd := &cobra.Command{
		Use:   "create NAME -f spec.yaml (--cron EXPR | --every DURATION)",
		Short: "Create a schedule that runs a sweep spec and judges each run against a baseline",
		Long: `Create checks the spec as submit does (its systems and corpora must resolve
now), stores it under its content hash with its paths made absolute (the
workers must see those paths, or the spec must name store prefixes), and
creates a Temporal schedule: a run is skipped while the previous one still
runs, and a run missed while Temporal or the workers were down starts when
they return, within --catchup-window.

--baseline previous compares each run with the schedule's previous
successful run; a bundle id pins the comparison to that bundle, which must
exist and share a corpus with the spec. --notify posts each verdict.json to
a webhook (retried with backoff; a failure is shown by schedule show, the
run itself succeeds).`,
		Example: `  floorbench schedule create nightly -f sweep.yaml --cron "0 3 * * *"
  floorbench schedule create hourly -f sweep.yaml --every 1h --baseline 3f2a9c --notify http://127.0.0.1:9000/hook`,
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "sweep spec (YAML)")
	cmd.Flags().StringVar(&cron, "cron", "", `when runs are due, as a cron expression (UTC), e.g. "0 3 * * *"`)
	cmd.Flags().DurationVar(&every, "every", 0, "when runs are due, as an interval, e.g. 24h")
	cmd.Flags().StringVar(&baseline, "baseline", nightly.BaselinePrevious, "previous (the schedule's previous successful run) or a bundle id")
	cmd.Flags().Float64Var(&tolerance, "tolerance", compare.DefaultTolerance, "change a whole CI must pass before a verdict is regressed or improved")
	cmd.Flags().StringVar(&notify, "notify", "", "webhook URL each run's verdict.json is posted to")
	cmd.Flags().DurationVar(&catchup, "catchup-window", temporalclient.DefaultCatchupWindow, "how late a run missed while Temporal or the workers were down may still start")
	cmd.MarkFlagsMutuallyExclusive("cron", "every")
	return configuredScheduleCommand(cmd, &output, func(ctx context.Context, cfg config.Config, cl temporalclient.Client, st store.Store, args []string) error {
		settings := nightly.Settings{Name: args[0], Cron: cron, Every: every, Baseline: baseline,
			Tolerance: tolerance, Notify: notify, CatchupWindow: catchup}
		data, err := nightly.CheckNew(ctx, st, file, &settings, scheduleChecks(cfg))
		if err != nil {
			return err
		}
		// Temporal checks the cron expression: the schedule is created
		// paused, and unpaused once its spec is stored, so a rejected
		// schedule stores nothing and no run starts without its spec.
		if err := temporalclient.CreateSchedule(ctx, cl, settings); err != nil {
			return err
		}
		if err := store.PutBytes(ctx, st, settings.SpecKey, data); err != nil {
			_ = temporalclient.DeleteSchedule(ctx, cl, settings.Name)
			return err
		}
		if err := temporalclient.PauseSchedule(ctx, cl, settings.Name, false, ""); err != nil {
			return err
		}
		state, err := temporalclient.DescribeSchedule(ctx, cl, settings.Name)
		if err != nil {
			return err
		}
		if output == "json" {
			return writeJSON(cmd.OutOrStdout(), state.Masked())
		}
		fmt.Fprintf(cmd.OutOrStdout(), "schedule %s created; next run %s\n", settings.Name, nextRun(state))
		return nil
	})
}

// updateFlags are the settings update changes, each only when given.
var updateFlags = []string{"file", "cron", "every", "baseline", "tolerance", "notify", "catchup-window"}

func newScheduleUpdateCommand() *cobra.Command {
	var output, file, cron, baseline, notify string
	var every, catchup time.Duration
	var tolerance float64
	cmd := &cobra.Command{
		Use:   "update NAME [-f spec.yaml] [--cron EXPR | --every DURATION] [--baseline B] [--tolerance T] [--notify URL]",
		Short: "Change a schedule's spec, timing, baseline, tolerance or webhook: only what is given",
		Long: `Update changes only the settings it is given; the others, the schedule's
paused state and its runs stay. A new spec is checked as create checks it
and stored under its content hash before the schedule points at it; the
next run resolves it. --cron replaces an --every interval and the other
way round; --notify "" stops the notifications. Every setting is checked
before anything changes: bad input changes nothing.`,
		Example: `  floorbench schedule update nightly -f sweep-v2.yaml
  floorbench schedule update nightly --cron "30 2 * * *" --tolerance 0.05
  floorbench schedule update nightly --baseline 3f2a9c -o json`,
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "new sweep spec (YAML)")
	cmd.Flags().StringVar(&cron, "cron", "", `when runs are due, as a cron expression (UTC), e.g. "0 3 * * *"`)
	cmd.Flags().DurationVar(&every, "every", 0, "when runs are due, as an interval, e.g. 24h")
	cmd.Flags().StringVar(&baseline, "baseline", "", "previous (the schedule's previous successful run) or a bundle id")
	cmd.Flags().Float64Var(&tolerance, "tolerance", 0, "change a whole CI must pass before a verdict is regressed or improved")
	cmd.Flags().StringVar(&notify, "notify", "", `webhook URL each run's verdict.json is posted to ("": none)`)
	cmd.Flags().DurationVar(&catchup, "catchup-window", 0, "how late a run missed while Temporal or the workers were down may still start")
	cmd.MarkFlagsMutuallyExclusive("cron", "every")
	return configuredScheduleCommand(cmd, &output, func(ctx context.Context, cfg config.Config, cl temporalclient.Client, st store.Store, args []string) error {
		f := cmd.Flags()
		var changed []string
		for _, name := range updateFlags {
			if f.Changed(name) {
				changed = append(changed, name)
			}
		}
		if len(changed) == 0 {
			return fmt.Errorf("nothing to update: give -f, --cron, --every, --baseline, --tolerance, --notify or --catchup-window")
		}
		cur, err := temporalclient.DescribeSchedule(ctx, cl, args[0])
		if err != nil {
			return err
		}
		s := cur.ScheduleSettings
		switch {
		case f.Changed("cron"):
			s.Cron, s.Every = cron, 0
		case f.Changed("every"):
			s.Cron, s.Every = "", every
		}
		if f.Changed("baseline") {
			s.Baseline = baseline
		}
		if f.Changed("tolerance") {
			s.Tolerance = tolerance
		}
		if f.Changed("notify") {
			s.Notify = notify
		}
		if f.Changed("catchup-window") {
			s.CatchupWindow = catchup
		}
		changes := nightly.Changes{Spec: f.Changed("file"), File: file, Baseline: f.Changed("baseline")}
		data, err := nightly.CheckUpdate(ctx, st, changes, &s, scheduleChecks(cfg))
		if err != nil {
			return err
		}
		if data != nil {
			// Temporal checks a new cron expression before the new spec
			// is stored, so one it rejects stores nothing.
			interim := s
			interim.SpecKey, interim.SpecFile, interim.TaskQueue = cur.SpecKey, cur.SpecFile, cur.TaskQueue
			if interim != cur.ScheduleSettings {
				if err := temporalclient.UpdateSchedule(ctx, cl, interim); err != nil {
					return err
				}
			}
			if err := store.PutBytes(ctx, st, s.SpecKey, data); err != nil {
				return err
			}
		}
		if err := temporalclient.UpdateSchedule(ctx, cl, s); err != nil {
			return err
		}
		return printScheduleState(ctx, cmd.OutOrStdout(), cl, args[0], output, "updated ("+strings.Join(changed, ", ")+")")
	})
}

// scheduleChecks are the rules of this machine and its configuration a
// schedule's settings must pass: the webhooks it allows, systems and
// corpora that resolve here, and bundle ids as a user may type them.
func scheduleChecks(cfg config.Config) nightly.Checks {
	return nightly.Checks{
		Notify: cfg.Webhooks().Check,
		Resolve: func(sw *spec.Sweep) error {
			rt := detect.RuntimeFromEnv()
			rt.Limits = cfg.Limits
			_, err := sweep.Resolve(sw, rt)
			return err
		},
		BundleID: resolveBundleID,
		Limits:   cfg.Limits,
	}
}
