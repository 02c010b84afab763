package temporalclient_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/devserver"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/temporalclient"
	"github.com/floorbench/floorbench/internal/testenv"
)

// startDevServer starts a Temporal dev server in memory for one test and
// dials it.
func startDevServer(t *testing.T) (temporalclient.Client, config.Config) {
	t.Helper()
	srv, err := devserver.New(testenv.Tool(t, "temporal", "temporal"), t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	cfg := config.Config{}.DevServer(srv.Address)
	cl, err := temporalclient.Dial(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl, cfg
}

// A schedule is created paused with its settings, described and listed
// with them (its webhook masked when shown), updated, paused and resumed
// with a note, refuses a second schedule of its name and a backfill over
// the limit before starting any run, and is gone once deleted; a name
// that no schedule has is one clear error.
func TestScheduleLifecycle(t *testing.T) {
	ctx := context.Background()
	cl, cfg := startDevServer(t)
	s := temporalclient.ScheduleSettings{Name: "lab", Every: time.Hour, SpecKey: "specs/lab.yaml", SpecFile: "/specs/lab.yaml",
		Baseline: "previous", Tolerance: 0.01, Notify: "https://hooks.example.com/h?token=s3cr3t", CatchupWindow: time.Hour, TaskQueue: "q"}
	if err := temporalclient.CreateSchedule(ctx, cl, s); err != nil {
		t.Fatal(err)
	}
	if err := temporalclient.CreateSchedule(ctx, cl, s); err == nil || !strings.Contains(err.Error(), "schedule lab already exists") {
		t.Errorf("a second schedule of the same name: %v", err)
	}
	st, err := temporalclient.DescribeSchedule(ctx, cl, "lab")
	if err != nil {
		t.Fatal(err)
	}
	if st.ScheduleSettings != s || !st.Paused || st.Overlap != "skip" || st.ID != "floorbench-nightly-lab" || len(st.Next) == 0 {
		t.Errorf("described %+v", st)
	}
	if m := st.Masked(); strings.Contains(m.Notify, "s3cr3t") || st.Notify != s.Notify {
		t.Errorf("masked webhook %q (the state keeps %q)", m.Notify, st.Notify)
	}

	s.Every, s.Cron, s.Tolerance = 0, "0 3 * * *", 0.05
	if err := temporalclient.UpdateSchedule(ctx, cl, s); err != nil {
		t.Fatal(err)
	}
	bad := s
	bad.Cron = "not a cron"
	if err := temporalclient.UpdateSchedule(ctx, cl, bad); err == nil || !strings.HasPrefix(err.Error(), "schedule lab: ") {
		t.Errorf("a cron Temporal refuses: %v", err)
	}
	if err := temporalclient.PauseSchedule(ctx, cl, "lab", false, "resumed by the test"); err != nil {
		t.Fatal(err)
	}
	list, err := temporalclient.ListSchedules(ctx, cl)
	if err != nil || len(list) != 1 {
		t.Fatalf("listed %d schedules, %v", len(list), err)
	}
	if got := list[0]; got.ScheduleSettings != s || got.Paused || got.Note != "resumed by the test" {
		t.Errorf("after update and unpause: %+v", got)
	}

	lim := limits.Default()
	lim.BackfillRuns = 2
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if n, err := temporalclient.BackfillSchedule(ctx, cl, cfg.Namespace, "lab", from, from.Add(72*time.Hour), lim); err == nil || n != 3 {
		t.Errorf("a backfill of 3 nights over a limit of 2: %d runs, %v", n, err)
	}
	if _, err := temporalclient.BackfillSchedule(ctx, cl, cfg.Namespace, "lab", from, from, lim); err == nil || !strings.Contains(err.Error(), "is not before") {
		t.Errorf("an empty backfill window: %v", err)
	}
	if st, err := temporalclient.DescribeSchedule(ctx, cl, "lab"); err != nil || st.Actions != 0 || len(st.Recent) != 0 {
		t.Errorf("a refused backfill started runs: %+v, %v", st, err)
	}

	if err := temporalclient.DeleteSchedule(ctx, cl, "lab"); err != nil {
		t.Fatal(err)
	}
	for _, op := range []func() error{
		func() error { _, err := temporalclient.DescribeSchedule(ctx, cl, "lab"); return err },
		func() error { return temporalclient.TriggerSchedule(ctx, cl, "lab") },
		func() error { return temporalclient.DeleteSchedule(ctx, cl, "lab") },
	} {
		if err := op(); err == nil || !strings.Contains(err.Error(), "schedule lab: no such schedule") {
			t.Errorf("a deleted schedule: %v", err)
		}
	}
	if err := temporalclient.PauseSchedule(ctx, cl, "../lab", true, ""); err == nil {
		t.Error("a schedule name that is not one was accepted")
	}
}

// A run triggered on workers whose store does not hold the schedule's
// spec fails at once, records why, and status shows the cause once, as
// the run's own state.
func TestTriggeredRunWithoutItsSpecFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, _ := startDevServer(t)
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := temporalclient.StartWorkers(cl, &activities.Activities{Store: st}, []string{"q"}, "q", activities.Admission{Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Stop()
	s := temporalclient.ScheduleSettings{Name: "gone", Every: 24 * time.Hour, SpecKey: "specs/gone.yaml", Baseline: "previous",
		CatchupWindow: time.Hour, TaskQueue: "q"}
	if err := temporalclient.CreateSchedule(ctx, cl, s); err != nil {
		t.Fatal(err)
	}
	if err := temporalclient.TriggerSchedule(ctx, cl, "gone"); err != nil {
		t.Fatal(err)
	}
	var run temporalclient.Status
	for run.State == "" || run.State == "running" {
		sched, err := temporalclient.DescribeSchedule(ctx, cl, "gone")
		if err != nil {
			t.Fatal(err)
		}
		if len(sched.Recent) == 1 {
			if run, err = temporalclient.GetStatus(ctx, cl, sched.Recent[0].WorkflowID); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the run did not end: %+v", run)
		case <-time.After(200 * time.Millisecond):
		}
	}
	if run.State != "failed" || !strings.HasPrefix(run.Error, "scheduled spec specs/gone.yaml: ") || strings.Count(run.Error, "scheduled spec") != 1 {
		t.Errorf("run %+v: want failed, naming the missing spec, said once", run)
	}
	if run.Progress.Phase != "resolving the spec" {
		t.Errorf("phase %q: the run failed before its sweep started", run.Progress.Phase)
	}
}
