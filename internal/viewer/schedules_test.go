package viewer_test

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
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
		{Schedule: "viewer-nightly", BundleID: f.old, Counts: map[compare.Outcome]int{compare.New: 8}},
		{Schedule: "viewer-nightly", BundleID: f.cur, Baseline: f.old, Counts: map[compare.Outcome]int{compare.Unchanged: 8}},
		{Schedule: "viewer-nightly", Error: failedRun},
	} {
		at := day.Add(time.Duration(i) * 24 * time.Hour)
		r.Scheduled = at.Format(time.RFC3339)
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.PutBytes(ctx, f.store, keys.ScheduleRun("viewer-nightly", at)+nightly.RunFile, data); err != nil {
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

// countingStore counts the reads of every key.
type countingStore struct {
	store.Store
	mu   sync.Mutex
	gets map[string]int
}

func (c *countingStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	c.mu.Lock()
	c.gets[key]++
	c.mu.Unlock()
	return c.Store.Get(ctx, key)
}

// results are the reads of results.json files since the last call, by
// bundle id.
func (c *countingStore) results() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, n := range c.gets {
		if id, ok := strings.CutSuffix(strings.TrimPrefix(k, "bundles/"), "/results.json"); ok {
			out[id] = n
		}
	}
	c.gets = map[string]int{}
	return out
}

// A schedule page and its four trends, asked for at once as a browser
// does, read each run's results once between them; seeing the page again
// reads none, until a run is added, which the trends then show.
func TestSchedulePageReadsEachRunsResultsOnce(t *testing.T) {
	f := newFixture(t)
	counted := &countingStore{Store: f.store, gets: map[string]int{}}
	srv := httptest.NewServer(viewer.New(counted, log.New(testWriter{t}, "viewer: ", 0), limits.Default()))
	defer srv.Close()
	ctx := context.Background()
	addRun := func(day int, bundleID string) {
		at := time.Date(2026, 11, 30+day, 3, 0, 0, 0, time.UTC)
		data, err := json.Marshal(nightly.Run{Schedule: "viewer-counted", BundleID: bundleID, Scheduled: at.Format(time.RFC3339)})
		if err != nil {
			t.Fatal(err)
		}
		if err := store.PutBytes(ctx, f.store, keys.ScheduleRun("viewer-counted", at)+nightly.RunFile, data); err != nil {
			t.Fatal(err)
		}
	}
	view := func() map[string]string {
		if resp, body := get(t, srv, "/schedules/viewer-counted/"); resp.StatusCode != http.StatusOK {
			t.Fatalf("schedule page: %d\n%s", resp.StatusCode, body)
		}
		svgs := make([]string, len(nightly.Metrics))
		var wg sync.WaitGroup
		for i, m := range nightly.Metrics {
			wg.Go(func() {
				resp, err := http.Get(srv.URL + "/schedules/viewer-counted/trend.svg?metric=" + m)
				if err != nil {
					t.Error(err)
					return
				}
				defer resp.Body.Close()
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusOK {
					t.Errorf("trend of %s: %d", m, resp.StatusCode)
				}
				svgs[i] = string(body)
			})
		}
		wg.Wait()
		out := map[string]string{}
		for i, m := range nightly.Metrics {
			out[m] = svgs[i]
		}
		return out
	}

	addRun(0, f.old)
	addRun(1, f.cur)
	view()
	if got := counted.results(); len(got) != 2 || got[f.old] != 1 || got[f.cur] != 1 {
		t.Errorf("the page read results.json %v times by bundle, want each of the two runs' once", got)
	}
	view()
	if got := counted.results(); len(got) != 0 {
		t.Errorf("the page seen again read results.json %v times by bundle, want none", got)
	}
	addRun(2, f.cur)
	svgs := view()
	if got := counted.results(); got[f.old] != 1 || got[f.cur] != 2 {
		t.Errorf("after a run was added the page read results.json %v times by bundle, want once per run", got)
	}
	for m, svg := range svgs {
		if !strings.Contains(svg, ">2026-12-02<") {
			t.Errorf("the trend of %s lacks the added run", m)
		}
	}
}

// Many readers arriving at once at a bundle not yet read wait for one read
// of its results (a full bundle's are megabytes parsed), not one each.
func TestABundleIsReadOnceByReadersArrivingTogether(t *testing.T) {
	f := newFixture(t)
	counted := &countingStore{Store: f.store, gets: map[string]int{}}
	srv := httptest.NewServer(viewer.New(counted, log.New(testWriter{t}, "viewer: ", 0), limits.Default()))
	defer srv.Close()
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			resp, err := http.Get(srv.URL + "/bundles/" + f.cur + "/")
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("bundle page: %d, %v", resp.StatusCode, err)
			}
		})
	}
	wg.Wait()
	if got := counted.results(); got[f.cur] != 1 {
		t.Errorf("32 readers at once read results.json %d times, want 1", got[f.cur])
	}
}
