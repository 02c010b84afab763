package main

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/viewer"
)

// leaks fails the test when any of secrets is in a store object, in
// `schedule show` (text and json), `schedule history`, or on the viewer's
// schedule page.
func (e *nightlyEnv) leaks(name string, secrets ...string) {
	e.t.Helper()
	ctx := context.Background()
	all, err := e.store.List(ctx, "")
	if err != nil {
		e.t.Fatal(err)
	}
	shown := map[string]string{}
	for _, k := range all {
		data, err := store.GetBytes(ctx, e.store, k)
		if err != nil {
			e.t.Fatal(err)
		}
		shown["store object "+k] = string(data)
	}
	shown["schedule show"] = e.mustCLI("schedule", "show", name)
	shown["schedule show -o json"] = e.mustCLI("schedule", "show", name, "-o", "json")
	shown["schedule history"] = e.mustCLI("schedule", "history", name, "-o", "csv")
	srv := httptest.NewServer(viewer.New(e.store, nil))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/schedules/" + name + "/")
	if err != nil {
		e.t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	shown["viewer page"] = string(page)
	for where, text := range shown {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				e.t.Errorf("%s shows %q", where, s)
			}
		}
	}
}

// A scheduled run whose system spec has become a secret-shaped file (in
// place, or as a link to one outside the schedule root) fails naming the
// path, and the secret is in no store object, no `schedule show` or
// `schedule history` output and no viewer page.
func TestScheduledRunsQuoteNoSecrets(t *testing.T) {
	e := newNightlyEnv(t)
	e.mustCLI("schedule", "create", "leaky", "-f", e.spec, "--every", "24h")
	outside := filepath.Join(t.TempDir(), "shadow")
	shadow := secretFiles[0]
	writeFile(t, filepath.Dir(outside), "shadow", shadow.content)
	runs := 0
	for _, how := range []string{"in place", "a link outside the root"} {
		if err := os.Remove(e.system); err != nil {
			t.Fatal(err)
		}
		if how == "in place" {
			writeFile(t, filepath.Dir(e.system), filepath.Base(e.system), shadow.content)
		} else if err := os.Symlink(outside, e.system); err != nil {
			t.Fatal(err)
		}
		e.mustCLI("schedule", "trigger", "leaky")
		runs++
		failed := e.waitRuns("leaky", runs)[runs-1]
		if failed.BundleID != "" || !strings.Contains(failed.Error, e.system) {
			t.Errorf("%s: run %+v; want it failed naming %s", how, failed.Run, e.system)
		}
		t.Logf("%s: %s", how, failed.Error)
		e.leaks("leaky", shadow.secrets...)
	}
}

