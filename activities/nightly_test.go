package activities

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/score"
)

// nightlyBundle aggregates one evaluation of the RMS gate on the small
// fixture corpus under name, as a scheduled run's sweep does.
func nightlyBundle(t *testing.T, a *Activities, name string) string {
	t.Helper()
	ctx := context.Background()
	plan, ref := inferred(t, a, "c", smallCorpus(t))
	key, err := a.Evaluate(ctx, EvaluateInput{System: ref, Corpus: plan, Params: score.DefaultParams(), Resamples: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	meta := bundle.Meta{Name: name, Protocol: score.DefaultParams(), Resamples: 20, Seed: 1, Inputs: []bundle.InputRef{
		{Kind: "corpus", Name: "c", Hash: plan.Hash}, {Kind: "system", Name: "rms", Hash: ref.Hash}}}
	id, err := a.Aggregate(ctx, AggregateInput{Meta: meta, Evaluations: []string{key}})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func storedRun(t *testing.T, a *Activities, prefix string) nightly.Run {
	t.Helper()
	var r nightly.Run
	if err := json.Unmarshal([]byte(stored(t, a.Store, prefix+nightly.RunFile)), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// Verdict judges a run against the schedule's previous run that has a
// bundle: the first run finds its system new, the next (same results)
// identical, past a failed run in between; run.json is stored last and
// names the bundle, baseline, inputs and counts; a pinned baseline that
// is not in the store is bad input.
func TestVerdictAgainstThePreviousRun(t *testing.T) {
	ctx := context.Background()
	a, rec, _ := recording(t)
	id := nightlyBundle(t, a, "nightly")
	night := func(day int) time.Time { return time.Date(2026, 12, day, 3, 0, 0, 0, time.UTC) }
	in := VerdictInput{Schedule: "n", WorkflowID: "wf", BundleID: id, Baseline: nightly.BaselinePrevious,
		Tolerance: 0.005, SpecKey: "specs/x.yaml", SpecHash: "x", CodeVersion: "v1"}

	in.Scheduled = night(1)
	rec.take()
	first, err := a.Verdict(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	wantCounts := map[compare.Outcome]int{compare.New: 2}
	if first.Baseline != "" || !maps.Equal(first.Counts, wantCounts) || first.Prefix != keys.ScheduleRun("n", night(1)) {
		t.Errorf("first run: %+v; want no baseline and %v", first, wantCounts)
	}
	puts := rec.take()
	want := []string{first.Prefix + nightly.VerdictFile, first.Prefix + nightly.VerdictMarkdown, first.Prefix + nightly.RunFile}
	if !slices.Equal(puts, want) {
		t.Errorf("stored %q, want %q (run.json last)", puts, want)
	}
	run := storedRun(t, a, first.Prefix)
	if run.BundleID != id || run.Scheduled != "2026-12-01T03:00:00Z" || run.CodeVersion != "v1" || len(run.Inputs) != 2 || run.Error != "" {
		t.Errorf("run.json %+v", run)
	}

	if err := a.RecordFailedRun(ctx, FailedRunInput{Schedule: "n", Scheduled: night(2), WorkflowID: "wf2", SpecKey: "specs/x.yaml",
		Error: "specs/x.yaml: ep.yaml: no such file"}); err != nil {
		t.Fatal(err)
	}
	failed := storedRun(t, a, keys.ScheduleRun("n", night(2)))
	if failed.BundleID != "" || failed.Error != "specs/x.yaml: ep.yaml: no such file" || failed.CodeVersion == "" {
		t.Errorf("failed run.json %+v; want no bundle, the error and this worker's code version", failed)
	}

	in.Scheduled = night(3)
	third, err := a.Verdict(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if third.Baseline != id || !maps.Equal(third.Counts, map[compare.Outcome]int{compare.Identical: 2}) {
		t.Errorf("third run: %+v; want baseline %s (the failed run passed over) and 2 identical", third, id)
	}
	if md := stored(t, a.Store, third.Prefix+nightly.VerdictMarkdown); !strings.Contains(md, "identical") {
		t.Errorf("verdict.md %q", md)
	}

	in.Scheduled, in.Baseline = night(4), "0123456789abcdef"
	_, err = a.Verdict(ctx, in)
	assertBadInput(t, "a pinned baseline not in the store", err, "baseline bundle 0123456789abcdef")
}

// Notify posts the run's verdict.json as it is stored; an answer other
// than 2xx is an error Temporal retries (not bad input), a URL that is
// not one is bad input; RecordNotification stores what happened.
func TestNotifyPostsTheStoredVerdict(t *testing.T) {
	ctx := context.Background()
	a, _, _ := recording(t)
	id := nightlyBundle(t, a, "nightly")
	res, err := a.Verdict(ctx, VerdictInput{Schedule: "n", Scheduled: time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC), BundleID: id,
		Baseline: nightly.BaselinePrevious, Tolerance: 0.005})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	status := http.StatusNoContent
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.Header.Get("Content-Type")+" "+string(body))
		w.WriteHeader(status)
	}))
	defer srv.Close()

	n, err := a.Notify(ctx, NotifyInput{URL: srv.URL, Prefix: res.Prefix})
	want := "POST application/json " + stored(t, a.Store, res.Prefix+nightly.VerdictFile)
	if err != nil || n != 1 || len(got) != 1 || got[0] != want {
		t.Fatalf("notify: attempt %d, %v, the webhook got %q; want %q", n, err, got, want)
	}
	status = http.StatusBadGateway
	if _, err := a.Notify(ctx, NotifyInput{URL: srv.URL, Prefix: res.Prefix}); err == nil || IsBadInput(err) || !strings.Contains(err.Error(), "502") {
		t.Errorf("a 502 answer: %v; want a retryable error naming it", err)
	}
	_, err = a.Notify(ctx, NotifyInput{URL: "http://[::1", Prefix: res.Prefix})
	assertBadInput(t, "a malformed URL", err, "--notify (a URL that does not parse): want an http or https URL")

	rec := nightly.Notification{URL: srv.URL, OK: false, Attempts: 3, Error: "webhook answered 502"}
	if err := a.RecordNotification(ctx, NotificationInput{Prefix: res.Prefix, Notification: rec}); err != nil {
		t.Fatal(err)
	}
	runs, err := nightly.Runs(ctx, a.Store, "n")
	if err != nil || len(runs) != 1 || runs[0].Notification == nil || *runs[0].Notification != rec {
		t.Errorf("runs %+v, %v; want the one run with notification %+v", runs, err, rec)
	}
}
