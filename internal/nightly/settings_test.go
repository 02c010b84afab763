package nightly_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/temporalclient"
)

// scheduleFixture is a store, a corpus folder named "fixture" on disk, a
// sweep spec over it naming the corpus by a relative path, and two stored
// bundles: one of that corpus and one of another.
type scheduleFixture struct {
	st          store.Store
	spec        string
	bad         string // a spec whose system does not resolve
	same, other string // bundle ids: of the spec's corpus (the latest), of another
	checks      nightly.Checks
}

func newScheduleFixture(t *testing.T) *scheduleFixture {
	t.Helper()
	dir := t.TempDir()
	st, err := store.NewLocal(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	if err := auditfixture.Write(filepath.Join(dir, "corpus"), auditfixture.Shortcut(), 1); err != nil {
		t.Fatal(err)
	}
	f := &scheduleFixture{st: st,
		spec: writeSpec(t, dir, "sweep.yaml", "name: nightly\ncorpora: [{name: fixture, path: corpus}]\nsystems: [{name: rms, builtin: rms}]\n"),
		bad:  writeSpec(t, dir, "bad.yaml", "name: bad\ncorpora: [{name: fixture, path: corpus}]\nsystems: [{name: x, builtin: nosuch}]\n"),
	}
	f.other = storeBundle(t, st, "other", "c", "2026-12-01T00:00:00Z")
	f.same = storeBundle(t, st, "same", "fixture", "2026-12-02T00:00:00Z")
	f.checks = nightly.Checks{
		Notify: config.Config{}.Webhooks().Check,
		Resolve: func(sw *spec.Sweep) error {
			_, err := sweep.Resolve(sw, detect.RuntimeFromEnv())
			return err
		},
		BundleID: storedBundle,
	}
	// The spec names its corpus relative to the folder it is in, as a
	// user in that folder would.
	t.Chdir(dir)
	return f
}

// storedBundle accepts the id of a stored bundle, and "latest" for the
// newest one.
func storedBundle(ctx context.Context, st store.Store, arg string) (string, error) {
	if arg == "latest" {
		list, err := bundle.List(ctx, st)
		if err != nil || len(list) == 0 {
			return "", fmt.Errorf("no latest bundle: %v", err)
		}
		return list[0].BundleID, nil
	}
	if ok, err := bundle.Stored(ctx, st, arg); err != nil || !ok {
		return "", fmt.Errorf("bundle %s: no such bundle (%v)", arg, err)
	}
	return arg, nil
}

func writeSpec(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// storeBundle stores a bundle with one evaluation of corpus, created at
// created, and returns its id.
func storeBundle(t *testing.T, st store.Store, name, corpus, created string) string {
	t.Helper()
	meta := bundle.Meta{Name: name, Protocol: score.DefaultParams(), Resamples: 100, Seed: 1}
	eval := evaluate.Evaluation{System: "s", Corpus: corpus, CorpusHash: "h", Tasks: []evaluate.TaskResult{{
		Task: floor.TaskEOT, HasOP: true, InBudget: true, Test: &report.TaskMetrics{Recall: 0.5, FPRate: 0.05}}}}
	files, res, err := bundle.Build(meta, bundle.Parts{Evaluations: []evaluate.Evaluation{eval}}, created)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := store.PutBytes(context.Background(), st, keys.Bundle(res.BundleID, f.Name), f.Data); err != nil {
			t.Fatal(err)
		}
	}
	return res.BundleID
}

// settings are valid settings of a schedule named n.
func settings() nightly.Settings {
	return nightly.Settings{Name: "n", Every: time.Hour, Baseline: nightly.BaselinePrevious, Tolerance: compare.DefaultTolerance,
		CatchupWindow: temporalclient.DefaultCatchupWindow}
}

// Bad settings are refused with an error naming the flag and value, and
// no spec to store.
func TestCheckNewRefusesBadSettings(t *testing.T) {
	f := newScheduleFixture(t)
	for _, c := range []struct {
		name   string
		file   string
		change func(*nightly.Settings)
		want   string
	}{
		{"no spec", "", func(*nightly.Settings) {}, "no sweep spec: give it with -f"},
		{"no time", f.spec, func(s *nightly.Settings) { s.Every = 0 }, "say when runs are due: --cron EXPR or --every DURATION"},
		{"interval too short", f.spec, func(s *nightly.Settings) { s.Every = 10 * time.Millisecond }, "--every 10ms: want at least 1s"},
		{"cron with too few fields", f.spec, func(s *nightly.Settings) { s.Cron = "* *" }, `--cron "* *": want five fields`},
		{"catch-up window too short", f.spec, func(s *nightly.Settings) { s.CatchupWindow = time.Second }, "--catchup-window 1s: want at least 10s"},
		{"negative tolerance", f.spec, func(s *nightly.Settings) { s.Tolerance = -1 }, "--tolerance"},
		{"bad webhook", f.spec, func(s *nightly.Settings) { s.Notify = "ftp://x" }, "--notify"},
		{"spec that does not resolve", f.bad, func(*nightly.Settings) {}, f.bad + ": systems[0] (x)"},
		{"missing baseline", f.spec, func(s *nightly.Settings) { s.Baseline = "0123456789abcdef01234567" }, "--baseline: bundle 0123456789abcdef01234567"},
		{"baseline sharing no corpus", f.spec, func(s *nightly.Settings) { s.Baseline = f.other },
			"--baseline " + f.other + ": the bundle shares no corpus with the spec (it has none of fixture)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := settings()
			c.change(&s)
			data, err := nightly.CheckNew(context.Background(), f.st, c.file, &s, f.checks)
			if err == nil || !strings.Contains(err.Error(), c.want) || data != nil {
				t.Errorf("error %v, %d bytes; want one with %q and none", err, len(data), c.want)
			}
		})
	}
}

// A new schedule's spec is stored with its paths made absolute, under the
// hash of what is stored, and the settings name it, its file and its task
// queue; a pinned baseline is named by its full id.
func TestCheckNewResolvesSpecAndBaseline(t *testing.T) {
	f := newScheduleFixture(t)
	s := settings()
	s.Baseline = "latest"
	data, err := nightly.CheckNew(context.Background(), f.st, "sweep.yaml", &s, f.checks)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := spec.Parse("stored", data, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	stored.Normalise() // fills the default task queues
	if p := stored.Corpora[0].Path; !filepath.IsAbs(p) || filepath.Base(p) != "corpus" {
		t.Errorf("stored corpus path %q; want the absolute path of corpus", p)
	}
	if s.SpecKey != nightly.SpecKey(data) || s.SpecFile != f.spec || s.TaskQueue != stored.Queues.CPU || s.TaskQueue == "" {
		t.Errorf("settings %+v; want spec key %s, file %s, task queue %q", s, nightly.SpecKey(data), f.spec, stored.Queues.CPU)
	}
	if s.Baseline != f.same {
		t.Errorf("baseline %q; want the latest bundle sharing a corpus, %s", s.Baseline, f.same)
	}
}

// An update checks a pinned baseline against the spec the schedule will
// run (the stored one when the spec stays), and only when the baseline or
// the spec changes.
func TestCheckUpdateChecksTheBaselineAgainstTheSpecItWillRun(t *testing.T) {
	f := newScheduleFixture(t)
	ctx := context.Background()
	s := settings()
	data, err := nightly.CheckNew(ctx, f.st, f.spec, &s, f.checks)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.PutBytes(ctx, f.st, s.SpecKey, data); err != nil {
		t.Fatal(err)
	}

	if _, err := nightly.CheckUpdate(ctx, f.st, nightly.Changes{Spec: true}, &s, f.checks); err == nil || !strings.Contains(err.Error(), "no sweep spec") {
		t.Errorf("a new spec without a file: %v", err)
	}
	other := s
	other.Baseline = f.other
	if _, err := nightly.CheckUpdate(ctx, f.st, nightly.Changes{Baseline: true}, &other, f.checks); err == nil || !strings.Contains(err.Error(), "shares no corpus") {
		t.Errorf("a baseline sharing no corpus with the stored spec: %v", err)
	}
	unchanged := other
	if got, err := nightly.CheckUpdate(ctx, f.st, nightly.Changes{}, &unchanged, f.checks); err != nil || got != nil {
		t.Errorf("an update that changes neither spec nor baseline: %v, %d bytes; want no check and no spec", err, len(got))
	}
	same := s
	same.Baseline = f.same
	if got, err := nightly.CheckUpdate(ctx, f.st, nightly.Changes{Baseline: true}, &same, f.checks); err != nil || got != nil || same.Baseline != f.same {
		t.Errorf("a baseline of the stored spec's corpus: %v, %d bytes, baseline %s", err, len(got), same.Baseline)
	}
	renewed := same
	got, err := nightly.CheckUpdate(ctx, f.st, nightly.Changes{Spec: true, File: f.spec}, &renewed, f.checks)
	if err != nil || string(got) != string(data) || renewed != same {
		t.Errorf("the same spec again: %v; want the same bytes and settings", err)
	}
	lost := s
	lost.SpecKey, lost.Baseline = nightly.SpecKey([]byte("gone")), f.same
	if _, err := nightly.CheckUpdate(ctx, f.st, nightly.Changes{Baseline: true}, &lost, f.checks); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "schedule n: its spec") {
		t.Errorf("a baseline with the schedule's spec gone from the store: %v", err)
	}
}
