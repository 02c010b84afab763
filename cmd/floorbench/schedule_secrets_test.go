//go:build !floorbench_light

package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
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
	srv := httptest.NewServer(viewer.New(e.store, nil, limits.Default()))
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

// A webhook URL's credentials (user information, query values) reach the
// webhook and nothing else: `schedule show` (text and json), `schedule ls
// -o json`, notify.json and the viewer show them masked. A webhook that
// redirects is not followed, and the failure names the URL masked;
// link-local and metadata addresses and URLs with spaces are refused when
// the schedule is created.
func TestScheduleWebhookCredentialsAreMasked(t *testing.T) {
	e := newNightlyEnv(t)
	var auth, token string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		auth, token = user+":"+pass, r.URL.Query().Get("token")
	}))
	defer hook.Close()
	withCreds := func(u string) string {
		return strings.Replace(u, "http://", "http://hookuser:PASSWORD-42@", 1) + "/hook?token=TOKEN-42"
	}
	e.mustCLI("schedule", "create", "masked", "-f", e.spec, "--every", "24h", "--notify", withCreds(hook.URL))
	e.mustCLI("schedule", "trigger", "masked")
	r := e.waitNotified("masked", 1)[0]
	if !r.Notification.OK || auth != "hookuser:PASSWORD-42" || token != "TOKEN-42" {
		t.Errorf("notification %+v; the webhook got %q and token %q", r.Notification, auth, token)
	}
	if want := "http://***@" + strings.TrimPrefix(hook.URL, "http://") + "/hook?token=***"; r.Notification.URL != want {
		t.Errorf("notify.json URL %q, want %q", r.Notification.URL, want)
	}
	if out := e.mustCLI("schedule", "show", "masked"); !strings.Contains(out, "http://***@") {
		t.Errorf("schedule show does not show the masked URL:\n%s", out)
	}
	e.leaks("masked", "PASSWORD-42", "TOKEN-42", "hookuser")
	if out := e.mustCLI("schedule", "ls", "-o", "json"); strings.Contains(out, "PASSWORD-42") || strings.Contains(out, "TOKEN-42") {
		t.Errorf("schedule ls -o json shows the credentials:\n%s", out)
	}

	var followed atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { followed.Add(1) }))
	defer elsewhere.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/collect", http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	e.mustCLI("schedule", "create", "redirected", "-f", e.spec, "--every", "24h", "--notify", withCreds(redirect.URL))
	e.mustCLI("schedule", "trigger", "redirected")
	n := e.waitNotified("redirected", 1)[0].Notification
	if n.OK || !strings.Contains(n.Error, "307 Temporary Redirect (redirects are not followed)") || followed.Load() != 0 {
		t.Errorf("redirect: %+v, followed %d times", n, followed.Load())
	}
	e.leaks("redirected", "PASSWORD-42", "TOKEN-42", "hookuser")

	for raw, want := range map[string]string{
		"http://169.254.169.254/latest/meta-data/": "169.254.169.254 is a link-local address",
		"http://[fd00:ec2::254]/":                  "fd00:ec2::254 is a cloud metadata address",
		"http://127.0.0.1:9/a hook?token=TOKEN-42": "a space or control character",
	} {
		out, stderr, code := e.cli("schedule", "create", "refused", "-f", e.spec, "--every", "24h", "--notify", raw)
		oneErrorLine(t, out, stderr, code, want)
		if strings.Contains(stderr, "TOKEN-42") {
			t.Errorf("%s: the error shows the token: %s", raw, stderr)
		}
	}
}
