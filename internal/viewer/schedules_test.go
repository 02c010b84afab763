package viewer_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/viewer"
)

// failedRun is the error of a run whose system spec was gone.
const failedRun = "specs/5dca.yaml: systems[0] (oracle): system spec: open /srv/specs/oracle.yaml: no such file or directory"

// A schedule's page lists its runs with their verdicts and diff links,
// and draws each metric's trend over the runs from the runs' bundles;
// names that are not schedule names, schedules without runs and unknown
// metrics get a 404 page.
func TestSchedulePages(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t)
	ctx := context.Background()
	day := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	for i, r := range []nightly.Run{
		{Schedule: "viewer-nightly", BundleID: f.old, Counts: map[bundle.Outcome]int{bundle.New: 8}},
		{Schedule: "viewer-nightly", BundleID: f.cur, Baseline: f.old, Counts: map[bundle.Outcome]int{bundle.Unchanged: 8}},
		{Schedule: "viewer-nightly", Error: failedRun},
	} {
		at := day.Add(time.Duration(i) * 24 * time.Hour)
		r.Scheduled = at.Format(time.RFC3339)
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.PutBytes(ctx, f.store, nightly.RunPrefix("viewer-nightly", at)+nightly.RunFile, data); err != nil {
			t.Fatal(err)
		}
	}

	if _, body := get(t, srv, "/"); !strings.Contains(body, `href="/schedules/viewer-nightly/"`) {
		t.Error("the bundle list does not link the schedule")
	}
	resp, body := get(t, srv, "/schedules/viewer-nightly/")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("schedule page: %d\n%s", resp.StatusCode, body)
	}
	newest := strings.Index(body, "2026-12-01T03:00:00Z")
	oldest := strings.Index(body, "2026-11-30T03:00:00Z")
	if newest < 0 || oldest < 0 || newest > oldest {
		t.Error("the runs must be listed newest first")
	}
	if !strings.Contains(body, `href="/diff?old=`+f.old+`&amp;new=`+f.cur+`"`) || !strings.Contains(body, "8 unchanged") {
		t.Errorf("the second run's verdict and diff link are missing:\n%s", body)
	}
	if !strings.Contains(body, "failed: "+failedRun) {
		t.Errorf("the failed run's error is missing:\n%s", body)
	}
	for _, m := range nightly.Metrics {
		if !strings.Contains(body, `src="trend.svg?metric=`+m+`"`) {
			t.Errorf("no trend of %s", m)
		}
	}

	resp, svg := get(t, srv, "/schedules/viewer-nightly/trend.svg?metric=eot.recall")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(svg, "<?xml") {
		t.Fatalf("trend: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	res := results(t, f.store, f.cur)
	for _, e := range res.Evaluations {
		if !strings.Contains(svg, ">"+e.System+"<") {
			t.Errorf("the trend has no series for %s", e.System)
		}
	}
	// The failed run is a gap in the trend: no panel, no run, no system of
	// its own.
	points, err := nightly.History(ctx, f.store, "viewer-nightly", "", "eot.recall")
	if err != nil || points[len(points)-1].Error != failedRun {
		t.Fatalf("history: %v, %+v", err, points)
	}
	trend := viewer.Trend("viewer-nightly", "eot.recall", points)
	corpora := map[string]bool{}
	for _, e := range res.Evaluations {
		corpora[e.Corpus] = true
	}
	if len(trend.Panels) != len(corpora) || len(trend.Panels[0].Categories) != 2 {
		t.Errorf("trend with a failed run: %d panels over %v runs; want %d panels over the 2 runs with bundles", len(trend.Panels), trend.Panels[0].Categories, len(corpora))
	}
	for _, c := range []string{"/schedules/Bad_Name/", "/schedules/..%2Fbundles/", "/schedules/no-such-schedule/", "/schedules/viewer-nightly/trend.svg?metric=eot.latency"} {
		if resp, body := get(t, srv, c); resp.StatusCode != http.StatusNotFound || strings.Contains(body, "goroutine") {
			t.Errorf("%s: %d, want a 404 page", c, resp.StatusCode)
		}
	}
}
