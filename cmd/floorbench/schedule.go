package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/temporalclient"
)

func init() { subcommands = append(subcommands, newScheduleCommand) }

func newScheduleCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedule",
		Short: "Nightly regressions: sweeps on a Temporal schedule, each judged against a baseline",
		Long: `A schedule runs a sweep spec on Temporal's Schedules API (a cron expression
or an interval), compares each run's bundle with the baseline (the
schedule's previous successful run, or a pinned bundle) with paired
conversation bootstrap verdicts, stores verdict.json and verdict.md beside
the run, and can post the verdict to a webhook.

The spec is stored once; every run resolves it again on the worker, so a
system spec or model file replaced at the same path, a corpus folder
updated or a new worker version is picked up by the next run and recorded
in its manifest. Unchanged inputs reuse every stored corpus, track and
evaluation and give the same bundle. Verdicts: docs/protocol.md#paired-comparisons.`,
	}
	cmd.AddCommand(newScheduleCreateCommand(), newScheduleUpdateCommand(), newScheduleLsCommand(), newScheduleShowCommand(),
		newSchedulePauseCommand(true), newSchedulePauseCommand(false), newScheduleTriggerCommand(),
		newScheduleBackfillCommand(), newScheduleDeleteCommand(), newScheduleHistoryCommand())
	return cmd
}

// scheduleCommand is a command about schedules: it checks the schedule
// name, reads the configuration, opens the store, connects to Temporal and
// hands run both. Nothing is changed before every check has passed.
func scheduleCommand(cmd *cobra.Command, output *string, run func(ctx context.Context, cl temporalclient.Client, st store.Store, args []string) error) *cobra.Command {
	return configuredScheduleCommand(cmd, output, func(ctx context.Context, _ config.Config, cl temporalclient.Client, st store.Store, args []string) error {
		return run(ctx, cl, st, args)
	})
}

// configuredScheduleCommand is scheduleCommand whose run also gets the
// configuration (what it allows webhooks).
func configuredScheduleCommand(cmd *cobra.Command, output *string, run func(ctx context.Context, cfg config.Config, cl temporalclient.Client, st store.Store, args []string) error) *cobra.Command {
	config := configFlags(cmd)
	outputFlag(cmd, output, statusFormats)
	return withServices(cmd, config, func(sv *services, args []string) error {
		if len(args) > 0 {
			if err := nightly.CheckName(args[0]); err != nil {
				return err
			}
		}
		st, cl, err := sv.Both()
		if err != nil {
			return err
		}
		cfg, err := sv.Config()
		if err != nil {
			return err
		}
		return run(sv.ctx, cfg, cl, st, args)
	})
}

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
	cmd.Flags().DurationVar(&catchup, "catchup-window", temporalclient.DefaultCatchupWindow, "how late a run missed while Temporal or the workers were down may still start")
	cmd.MarkFlagsMutuallyExclusive("cron", "every")
	return configuredScheduleCommand(cmd, &output, func(ctx context.Context, cfg config.Config, cl temporalclient.Client, st store.Store, args []string) error {
		settings := temporalclient.ScheduleSettings{Name: args[0], Cron: cron, Every: every, Baseline: baseline,
			Tolerance: tolerance, Notify: notify, CatchupWindow: catchup}
		data, err := checkScheduleSettings(ctx, st, file, &settings, cfg.Webhooks().Check)
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

// checkScheduleUpdate checks a schedule's changed settings before anything
// changes, and returns the new spec to store (nil: the spec stays). A
// pinned baseline is checked against the spec the schedule will run when
// either changes.
func checkScheduleUpdate(ctx context.Context, st store.Store, newSpec bool, file string, newBaseline bool, s *temporalclient.ScheduleSettings, checkNotify func(string) error) ([]byte, error) {
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
func checkScheduleSettings(ctx context.Context, st store.Store, file string, s *temporalclient.ScheduleSettings, checkNotify func(string) error) ([]byte, error) {
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
func checkSettings(s *temporalclient.ScheduleSettings, checkNotify func(string) error) error {
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
func scheduledSpec(file string, s *temporalclient.ScheduleSettings) ([]byte, *spec.Sweep, error) {
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
	if _, err := sweep.Resolve(resolved, detect.RuntimeFromEnv()); err != nil {
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
func checkBaseline(ctx context.Context, st store.Store, s *temporalclient.ScheduleSettings, sw *spec.Sweep) error {
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

func when(s temporalclient.ScheduleSettings) string {
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

func counts(c map[bundle.Outcome]int) string {
	var parts []string
	for _, o := range bundle.Outcomes {
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
