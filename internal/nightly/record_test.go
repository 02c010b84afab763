package nightly_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/store"
)

// A run's records read back as written: a failed run is listed with its
// error but is no baseline, a judged run's notification is listed with
// its URL masked, and a pinned baseline is used as it is.
func TestRecordsReadBackAndTheBaselineSkipsFailedRuns(t *testing.T) {
	ctx := context.Background()
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	day := func(d int) time.Time { return time.Date(2026, 12, d, 3, 0, 0, 0, time.UTC) }
	run := func(d int, bundleID, failure string) nightly.Run {
		return nightly.Run{Schedule: "n", Scheduled: day(d).Format(time.RFC3339), BundleID: bundleID, Error: failure}
	}
	prefix, err := nightly.RecordVerdict(ctx, st, day(1), run(1, "b1", ""), compare.Paired(&bundle.Results{}, &bundle.Results{}, compare.PairedOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := nightly.RecordNotification(ctx, st, prefix, nightly.Notification{URL: "http://u:secret@127.0.0.1/hook", OK: true, Attempts: 1}); err != nil {
		t.Fatal(err)
	}
	if err := nightly.RecordFailure(ctx, st, day(2), run(2, "", "no corpus")); err != nil {
		t.Fatal(err)
	}
	runs, err := nightly.Runs(ctx, st, "n")
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %+v, %v; want two", runs, err)
	}
	if n := runs[0].Notification; n == nil || !n.OK || strings.Contains(n.URL, "secret") {
		t.Errorf("first run's notification %+v; want sent, URL masked", n)
	}
	if runs[1].Error != "no corpus" || runs[1].Notification != nil {
		t.Errorf("second run %+v; want its error and no notification", runs[1])
	}
	for _, c := range []struct {
		at       time.Time
		baseline string
		want     string
	}{
		{day(1), nightly.BaselinePrevious, ""},
		{day(3), nightly.BaselinePrevious, "b1"},
		{day(3), "pinned", "pinned"},
	} {
		if got, err := nightly.BaselineOf(ctx, st, "n", c.at, c.baseline); err != nil || got != c.want {
			t.Errorf("baseline %q of the run at %s: %q, %v; want %q", c.baseline, c.at, got, err, c.want)
		}
	}
}
