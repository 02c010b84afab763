//go:build !floorbench_light

package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/temporalclient"
)

// keysUnder lists the store's keys under prefix.
func (e *nightlyEnv) keysUnder(prefix string) []string {
	e.t.Helper()
	k, err := e.store.List(context.Background(), prefix)
	if err != nil {
		e.t.Fatal(err)
	}
	return k
}

// Update changes only what it is given, and a new spec is stored under its
// content hash and run by the next run; bad input is one clear line and
// changes nothing: neither the settings, nor the paused state, nor the
// stored specs.
func TestScheduleUpdate(t *testing.T) {
	e := newNightlyEnv(t)
	hook := newWebhook(t)
	e.mustCLI("schedule", "create", "upd", "-f", e.spec, "--every", "24h")
	e.mustCLI("schedule", "pause", "upd", "--note", "before the update")
	before := e.show("upd")
	specs := e.keysUnder("specs/")
	bad := writeFile(t, e.dir, "bad.yaml", "name: bad\ncorpora: []\nsystems: [{name: x, builtin: nosuch}]\n")
	seed2 := strings.Replace(mustRead(t, e.spec), "seed: 1", "seed: 2", 1)
	if seed2 == mustRead(t, e.spec) {
		t.Fatal("the sweep spec has no seed: 1 to change")
	}
	spec2 := writeFile(t, e.dir, "sweep2.yaml", seed2)

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"nothing to change", nil, "nothing to update"},
		{"spec that does not validate", []string{"-f", bad}, "bad.yaml"},
		{"bad cron with a good spec", []string{"-f", spec2, "--cron", "61 * * * *"}, "schedule upd:"},
		{"cron and every", []string{"--cron", "0 3 * * *", "--every", "1h"}, "cron"},
		{"bad webhook", []string{"--notify", "ftp://x"}, "--notify"},
		{"missing baseline", []string{"--baseline", "0123456789abcdef01234567"}, "--baseline"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := e.cli(append([]string{"schedule", "update", "upd"}, c.args...)...)
			if code == 0 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stderr %q; want one line with %q", code, errOut, c.want)
			}
			if s := e.show("upd"); s.ScheduleSettings != before.ScheduleSettings || !s.Paused || s.Note != before.Note {
				t.Errorf("bad input changed the schedule: %+v (paused %v %q), was %+v", s.ScheduleSettings, s.Paused, s.Note, before.ScheduleSettings)
			}
			if got := e.keysUnder("specs/"); !slices.Equal(got, specs) {
				t.Errorf("bad input stored specs %v, was %v", got, specs)
			}
		})
	}
	if _, errOut, code := e.cli("schedule", "update", "nosuch", "--tolerance", "0.1"); code == 0 || !strings.Contains(errOut, "schedule nosuch: no such schedule") {
		t.Errorf("update of an unknown schedule: exit %d, %q", code, errOut)
	}

	// One setting: the others stay, and so does the paused state.
	var s temporalclient.ScheduleState
	if err := json.Unmarshal([]byte(e.mustCLI("schedule", "update", "upd", "--tolerance", "0.05", "-o", "json")), &s); err != nil {
		t.Fatal(err)
	}
	want := before.ScheduleSettings
	want.Tolerance = 0.05
	if s.ScheduleSettings != want || !s.Paused || s.Note != before.Note {
		t.Errorf("after --tolerance 0.05: %+v (paused %v %q); want %+v, still paused", s.ScheduleSettings, s.Paused, s.Note, want)
	}

	// A cron expression replaces the interval.
	out := e.mustCLI("schedule", "update", "upd", "--cron", "30 2 * * *")
	if !strings.Contains(out, "schedule upd updated (cron)") {
		t.Errorf("update printed %q", out)
	}
	e.mustCLI("schedule", "unpause", "upd")
	s = e.show("upd").ScheduleState
	want.Cron, want.Every = "30 2 * * *", 0
	if s.ScheduleSettings != want || len(s.Next) == 0 || s.Next[0].UTC().Hour() != 2 || s.Next[0].Minute() != 30 {
		t.Errorf("after --cron: %+v next %v; want %+v, next at 02:30", s.ScheduleSettings, s.Next, want)
	}

	// A new spec and a webhook: the spec is stored under its hash, and the
	// next run runs it with the new tolerance and posts its verdict.
	e.mustCLI("schedule", "update", "upd", "-f", spec2, "--notify", hook.URL)
	s = e.show("upd").ScheduleState
	if s.SpecKey == before.SpecKey || s.SpecFile != spec2 || s.Notify != hook.URL || s.Cron != want.Cron || s.Tolerance != 0.05 {
		t.Fatalf("after -f and --notify: %+v", s.ScheduleSettings)
	}
	stored, err := store.GetBytes(context.Background(), e.store, s.SpecKey)
	if err != nil || nightly.SpecKey(stored) != s.SpecKey || !strings.Contains(string(stored), "seed: 2") {
		t.Fatalf("new spec under %s: %v\n%s", s.SpecKey, err, stored)
	}
	e.mustCLI("schedule", "trigger", "upd")
	r := e.waitNotified("upd", 1)[0]
	if r.SpecKey != s.SpecKey || r.Error != "" {
		t.Errorf("the run after the update ran spec %s (error %q); want %s", r.SpecKey, r.Error, s.SpecKey)
	}
	if v := e.verdict(r); v.Tolerance != 0.05 {
		t.Errorf("the run after the update judged with tolerance %g; want 0.05", v.Tolerance)
	}
	if got := hook.received(); len(got) != 1 {
		t.Errorf("webhook received %d verdicts; want 1", len(got))
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A system spec or a model file that the stored spec points at and that is
// gone when a run starts fails that run with one error naming the path;
// the failed run is recorded (schedule show, schedule history) with no
// bundle and no verdict, and once the file is back the next run is judged
// against the last run that succeeded.
func TestScheduleRunFailsOnMissingInput(t *testing.T) {
	e := newNightlyEnv(t)
	e.mustCLI("schedule", "create", "fragile", "-f", e.spec, "--every", "24h")
	e.mustCLI("schedule", "trigger", "fragile")
	good := e.waitRuns("fragile", 1)[0]
	if good.Error != "" || good.BundleID == "" {
		t.Fatalf("first run: %+v", good.Run)
	}
	bundles := e.keysUnder(keys.Bundles)
	model := filepath.Join(e.dir, "probs", mustGlob(t, filepath.Join(e.dir, "probs", "*"))[0])

	runs := 1
	for _, gone := range []string{e.system, model} {
		t.Run(filepath.Base(gone), func(t *testing.T) {
			data := mustRead(t, gone)
			if err := os.Remove(gone); err != nil {
				t.Fatal(err)
			}
			// A trigger in the last run's second waits for the next one
			// (Temporal names a scheduled run by its second).
			e.mustCLI("schedule", "trigger", "fragile")
			runs++
			failed := e.waitRuns("fragile", runs)[runs-1]
			if failed.BundleID != "" || failed.Counts != nil || !strings.Contains(failed.Error, gone) || strings.Contains(failed.Error, "\n") || strings.Contains(failed.Error, "retryable") {
				t.Fatalf("run with %s gone: %+v; want no bundle, no verdict, one error naming the path", gone, failed.Run)
			}
			t.Logf("the run's error: %s", failed.Error)
			if *recordNightly != "" && gone == e.system {
				e.saveNightlyHistory(failed.WorkflowID, "nightly-failed-history.json")
			}
			if _, err := store.GetBytes(context.Background(), e.store, keys.ScheduleRun("fragile", mustTime(t, failed.Scheduled))+nightly.VerdictFile); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("a verdict was stored for the failed run: %v", err)
			}
			if got := e.keysUnder(keys.Bundles); !slices.Equal(got, bundles) {
				t.Errorf("the failed run stored bundle files: %d keys, was %d", len(got), len(bundles))
			}
			cl, err := temporalclient.Dial(context.Background(), e.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			if err := cl.GetWorkflow(context.Background(), failed.WorkflowID, "").Get(context.Background(), nil); err == nil || !strings.Contains(err.Error(), gone) {
				t.Errorf("the failed run's workflow: %v; want it failed naming %s", err, gone)
			}

			out := e.mustCLI("schedule", "show", "fragile")
			if !strings.Contains(out, "FAILED: ") || !strings.Contains(out, gone) {
				t.Errorf("schedule show does not show the failed run:\n%s", out)
			}
			t.Logf("schedule show:\n%s", out)
			if s := e.show("fragile"); len(s.Runs) != runs || s.Runs[runs-1].Error != failed.Error {
				t.Errorf("schedule show -o json: %d runs, last %+v", len(s.Runs), s.Runs[len(s.Runs)-1].Run)
			}
			var history []nightly.Point
			if err := json.Unmarshal([]byte(e.mustCLI("schedule", "history", "fragile", "--system", "oracle", "-o", "json")), &history); err != nil {
				t.Fatal(err)
			}
			if last := history[len(history)-1]; last.Scheduled != failed.Scheduled || last.Error != failed.Error || last.BundleID != "" {
				t.Errorf("history's last point %+v; want the failed run with its error", last)
			}
			if csv := e.mustCLI("schedule", "history", "fragile", "-o", "csv"); !strings.Contains(csv, gone) {
				t.Errorf("history -o csv does not show the failure:\n%s", csv)
			}

			writeFile(t, filepath.Dir(gone), filepath.Base(gone), data)
			e.mustCLI("schedule", "trigger", "fragile")
			runs++
			back := e.waitRuns("fragile", runs)[runs-1]
			if back.Error != "" || back.Baseline != good.BundleID || back.BundleID != good.BundleID {
				t.Errorf("run after %s came back: %+v; want bundle %s judged against it", gone, back.Run, good.BundleID)
			} else if v := e.verdict(back); !onlyOutcome(v, compare.Identical) {
				t.Errorf("run after %s came back: verdict %+v; want every row identical", gone, v.Counts)
			}
		})
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("%s: %v, %d files", pattern, err, len(m))
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}

// A Temporal dev server killed with SIGKILL across a scheduled time and
// restarted on its database file starts the run it missed when it comes
// back (within the catch-up window), and that run's verdict is the one
// an undisturbed run gives: identical, in the same bundle.
func TestScheduleCatchupAfterTemporalCrash(t *testing.T) {
	e := newNightlyEnvOn(t, true)
	e.mustCLI("schedule", "create", "crash", "-f", e.spec, "--every", "15s", "--catchup-window", "1h")
	first := e.waitRuns("crash", 1)[0]

	// The next due time at least 3 s ahead: Temporal is down across it.
	var due time.Time
	for _, next := range e.show("crash").Next {
		if time.Until(next) > 3*time.Second {
			due = next
			break
		}
	}
	if due.IsZero() {
		t.Fatal("schedule show lists no due time ahead")
	}
	e.temporal.Crash()
	crashed := time.Now()
	time.Sleep(time.Until(due) + 2*time.Second)
	if err := e.temporal.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	restarted := time.Now()

	at := due.UTC().Format(time.RFC3339)
	var missed nightly.RunView
	for deadline := time.Now().Add(5 * time.Minute); missed.Scheduled != at; {
		runs, err := nightly.Runs(context.Background(), e.store, "crash")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.Scheduled == at {
				missed = r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no run scheduled at %s within 5 minutes of restarting Temporal: %+v", at, runs)
		}
		time.Sleep(200 * time.Millisecond)
	}
	finished := time.Now()
	e.mustCLI("schedule", "pause", "crash")
	s := e.show("crash")
	var started time.Time
	for _, r := range s.Recent {
		if r.Scheduled.Equal(due) {
			started = r.Started
		}
	}
	t.Logf("due %s; Temporal killed %s before, serving again %s after; the run started %s after that and was recorded %s after; %d missed (catch-up window)",
		at, due.Sub(crashed).Round(time.Millisecond), restarted.Sub(due).Round(time.Millisecond), started.Sub(restarted).Round(time.Millisecond),
		finished.Sub(restarted).Round(time.Millisecond), s.MissedCatchup)
	if started.Before(restarted) {
		t.Errorf("the run due at %s started %s, before Temporal came back at %s", at, started, restarted)
	}
	if s.MissedCatchup != 0 {
		t.Errorf("%d runs missed the catch-up window; want none", s.MissedCatchup)
	}
	if missed.Error != "" || missed.BundleID != first.BundleID || missed.Baseline == "" {
		t.Errorf("the caught-up run: %+v; want bundle %s judged against a previous run", missed.Run, first.BundleID)
	} else if v := e.verdict(missed); !onlyOutcome(v, compare.Identical) {
		t.Errorf("the caught-up run's verdict: %+v; want every row identical, as an undisturbed run", v.Counts)
	}
}

// schedule history takes --temporal-address as every schedule command
// does: a name that is no schedule and has no runs is an error, a
// schedule that has not run yet an empty history; a --system no run
// evaluated is an error naming the systems the runs have.
func TestScheduleHistoryNamesWhatItCannotShow(t *testing.T) {
	e := newNightlyEnv(t)
	addr := []string{"--temporal-address", e.cfg.TemporalAddress}
	out, stderr, code := e.cli(append([]string{"schedule", "history", "nosuch"}, addr...)...)
	oneErrorLine(t, out, stderr, code, "schedule nosuch: no such schedule (floorbench schedule ls lists them), and the store holds no run of it")
	e.mustCLI("schedule", "create", "quiet", "-f", e.spec, "--every", "24h")
	if out := e.mustCLI(append([]string{"schedule", "history", "quiet", "-o", "json"}, addr...)...); strings.TrimSpace(out) != "[]" {
		t.Errorf("history of a schedule with no run: %q", out)
	}
	e.mustCLI("schedule", "trigger", "quiet")
	e.waitRuns("quiet", 1)
	out, stderr, code = e.cli("schedule", "history", "quiet", "--system", "<x>")
	oneErrorLine(t, out, stderr, code, `--system "<x>": no run of schedule quiet evaluated a system of that name (its runs have oracle)`)
}
