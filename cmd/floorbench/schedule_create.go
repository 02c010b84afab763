package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/orchestrate"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
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
	cmd.Flags().Float64Var(&tolerance, "tolerance", bundle.DefaultTolerance, "change a whole CI must pass before a verdict is regressed or improved")
	cmd.Flags().StringVar(&notify, "notify", "", "webhook URL each run's verdict.json is posted to")
	cmd.Flags().DurationVar(&catchup, "catchup-window", orchestrate.DefaultCatchupWindow, "how late a run missed while Temporal or the workers were down may still start")
	cmd.MarkFlagsMutuallyExclusive("cron", "every")
	return configuredScheduleCommand(cmd, &output, func(ctx context.Context, cfg orchestrate.Config, cl orchestrate.TemporalClient, st store.Store, args []string) error {
		settings := orchestrate.ScheduleSettings{Name: args[0], Cron: cron, Every: every, Baseline: baseline,
			Tolerance: tolerance, Notify: notify, CatchupWindow: catchup}
		data, err := checkScheduleSettings(ctx, st, file, &settings, cfg.Webhooks().Check)
		if err != nil {
			return err
		}
		// Temporal checks the cron expression: the schedule is created
		// paused, and unpaused once its spec is stored, so a rejected
		// schedule stores nothing and no run starts without its spec.
		if err := orchestrate.CreateSchedule(ctx, cl, settings); err != nil {
			return err
		}
		if err := store.PutBytes(ctx, st, settings.SpecKey, data); err != nil {
			_ = orchestrate.DeleteSchedule(ctx, cl, settings.Name)
			return err
		}
		if err := orchestrate.PauseSchedule(ctx, cl, settings.Name, false, ""); err != nil {
			return err
		}
		state, err := orchestrate.DescribeSchedule(ctx, cl, settings.Name)
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
	return configuredScheduleCommand(cmd, &output, func(ctx context.Context, cfg orchestrate.Config, cl orchestrate.TemporalClient, st store.Store, args []string) error {
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
		cur, err := orchestrate.DescribeSchedule(ctx, cl, args[0])
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
		data, err := checkScheduleUpdate(ctx, st, f.Changed("file"), file, f.Changed("baseline"), &s, cfg.Webhooks().Check)
		if err != nil {
			return err
		}
		if data != nil {
			// Temporal checks a new cron expression before the new spec
			// is stored, so one it rejects stores nothing.
			interim := s
			interim.SpecKey, interim.SpecFile, interim.TaskQueue = cur.SpecKey, cur.SpecFile, cur.TaskQueue
			if interim != cur.ScheduleSettings {
				if err := orchestrate.UpdateSchedule(ctx, cl, interim); err != nil {
					return err
				}
			}
			if err := store.PutBytes(ctx, st, s.SpecKey, data); err != nil {
				return err
			}
		}
		if err := orchestrate.UpdateSchedule(ctx, cl, s); err != nil {
			return err
		}
		return printScheduleState(ctx, cmd.OutOrStdout(), cl, args[0], output, "updated ("+strings.Join(changed, ", ")+")")
	})
}

// checkScheduleUpdate checks a schedule's changed settings before anything
// changes, and returns the new spec to store (nil: the spec stays). A
// pinned baseline is checked against the spec the schedule will run when
// either changes.
func checkScheduleUpdate(ctx context.Context, st store.Store, newSpec bool, file string, newBaseline bool, s *orchestrate.ScheduleSettings, checkNotify func(string) error) ([]byte, error) {
	if newSpec && file == "" {
		return nil, errNoSpec
	}
	if err := checkSettings(s, checkNotify); err != nil {
		return nil, err
	}
	var data []byte
	var sw *spec.Sweep
	var err error
	if newSpec {
		if data, sw, err = scheduledSpec(file, s); err != nil {
			return nil, err
		}
	}
	if s.Baseline == nightly.BaselinePrevious || !newSpec && !newBaseline {
		return data, nil
	}
	if sw == nil {
		stored, err := store.GetBytes(ctx, st, s.SpecKey)
		if err != nil {
			return nil, fmt.Errorf("schedule %s: its spec: %w", s.Name, err)
		}
		if sw, err = spec.Parse(s.SpecKey, stored); err != nil {
			return nil, err
		}
	}
	if err := checkBaseline(ctx, st, s, sw); err != nil {
		return nil, err
	}
	return data, nil
}

// checkScheduleSettings checks everything create is given before anything
// is stored or created, and returns the spec to store: the file with its
// paths made absolute.
func checkScheduleSettings(ctx context.Context, st store.Store, file string, s *orchestrate.ScheduleSettings, checkNotify func(string) error) ([]byte, error) {
	if file == "" {
		return nil, errNoSpec
	}
	if err := checkSettings(s, checkNotify); err != nil {
		return nil, err
	}
	data, sw, err := scheduledSpec(file, s)
	if err != nil {
		return nil, err
	}
	if s.Baseline != nightly.BaselinePrevious {
		if err := checkBaseline(ctx, st, s, sw); err != nil {
			return nil, err
		}
	}
	return data, nil
}

var errNoSpec = errors.New("no sweep spec: give it with -f")

// checkSettings checks when runs are due, the catch-up window, the
// tolerance and the webhook.
func checkSettings(s *orchestrate.ScheduleSettings, checkNotify func(string) error) error {
	switch {
	case s.Cron == "" && s.Every == 0:
		return fmt.Errorf("say when runs are due: --cron EXPR or --every DURATION")
	case s.Cron == "" && s.Every < time.Second:
		return fmt.Errorf("--every %s: want at least 1s", s.Every)
	case s.Cron != "" && len(strings.Fields(s.Cron)) != 5:
		return fmt.Errorf("--cron %q: want five fields (minute hour day-of-month month day-of-week)", s.Cron)
	}
	if s.CatchupWindow < 10*time.Second {
		return fmt.Errorf("--catchup-window %s: want at least 10s (Temporal's minimum)", s.CatchupWindow)
	}
	if err := bundle.CheckTolerance(s.Tolerance); err != nil {
		return err
	}
	if s.Notify != "" {
		return checkNotify(s.Notify)
	}
	return nil
}

// scheduledSpec reads a sweep spec to schedule, checks it as submit does
// (its systems and corpora must resolve now) and returns it as it will be
// stored, its paths made absolute; s gets its store key, file and task
// queue.
func scheduledSpec(file string, s *orchestrate.ScheduleSettings) ([]byte, *spec.Sweep, error) {
	sw, err := spec.Load(file)
	if err != nil {
		return nil, nil, err
	}
	for i := range sw.Corpora {
		if p := sw.Corpora[i].Path; p != "" {
			if sw.Corpora[i].Path, err = filepath.Abs(p); err != nil {
				return nil, nil, err
			}
		}
	}
	for i := range sw.Systems {
		if p := sw.Systems[i].Spec; p != "" {
			if sw.Systems[i].Spec, err = filepath.Abs(p); err != nil {
				return nil, nil, err
			}
		}
	}
	data, err := yaml.Marshal(sw)
	if err != nil {
		return nil, nil, err
	}
	resolved, err := spec.Parse(file, data)
	if err != nil {
		return nil, nil, err
	}
	if _, err := orchestrate.Resolve(resolved, detect.RuntimeFromEnv()); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	s.SpecKey, s.SpecFile, s.TaskQueue = nightly.SpecKey(data), file, resolved.Queues.CPU
	if abs, err := filepath.Abs(file); err == nil {
		s.SpecFile = abs
	}
	return data, sw, nil
}

// checkBaseline accepts a pinned baseline that exists and evaluated one
// of the spec's corpora (else no run could be compared with it).
func checkBaseline(ctx context.Context, st store.Store, s *orchestrate.ScheduleSettings, sw *spec.Sweep) error {
	id, err := resolveBundleID(ctx, st, s.Baseline)
	if err != nil {
		return fmt.Errorf("--baseline: %w", err)
	}
	res, err := readResults(ctx, st, id)
	if err != nil {
		return fmt.Errorf("--baseline: %w", err)
	}
	var names []string
	for _, c := range sw.Corpora {
		names = append(names, c.Name)
	}
	shared := false
	for _, e := range res.Evaluations {
		shared = shared || slices.Contains(names, e.Corpus)
	}
	if !shared {
		return fmt.Errorf("--baseline %s: the bundle shares no corpus with the spec (it has none of %s)", id, strings.Join(names, ", "))
	}
	s.Baseline = id
	return nil
}
