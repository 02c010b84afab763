//go:build !floorbench_light

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/devserver"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/testenv"
)

// The hostile-input probes: what an operator, a lab user and an attacker
// tried against a store, a Temporal dev server, MinIO, a worker and
// `floorbench serve` on 127.0.0.1, replayed (the trust-boundary findings
// and the earlier hardening round). Each probe is one named expectation;
// the test fails on any probe that no longer holds and logs how many held.

// probe is one hostile input and what must happen.
type probe struct {
	name  string
	check func() error
}

// probeRun is the environment the probes share.
type probeRun struct {
	t        *testing.T
	dir      string // what the probes write
	root     string // the worker's schedule root
	secret   string // a file outside the root, shaped like /etc/shadow
	storeDir string
	env      []string // the CLI's environment: Temporal, the store
	st       store.Store
	worker   *syncBuffer // the worker's log
	probes   []probe
}

const probeSecret = "SECRETHASH-9f8e7d"

func (p *probeRun) add(name string, check func() error) {
	p.probes = append(p.probes, probe{name, check})
}

// cli runs floorbench in the probes' environment, without a config file
// for the commands that read one.
func (p *probeRun) cli(args ...string) (string, string, int) {
	if slices.Contains([]string{"submit", "bundle", "schedule", "store", "serve"}, args[0]) {
		args = append(args, "--config", "")
	}
	stdout, stderr, code, _ := runWith(p.t, p.env, args...)
	return stdout, stderr, code
}

// refused expects one error line containing every want and quoting no
// secret.
func refused(stdout, stderr string, code int, want ...string) error {
	if code == 0 || stdout != "" || strings.Count(stderr, "\n") != 1 {
		return fmt.Errorf("exit %d, stdout %q, stderr %q: want one error line", code, stdout, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			return fmt.Errorf("stderr %q lacks %q", stderr, w)
		}
	}
	if strings.Contains(stderr, probeSecret) {
		return fmt.Errorf("stderr quotes the secret: %q", stderr)
	}
	return nil
}

// TestHostileProbes replays the probes; skipped with -short (it starts a
// Temporal dev server, MinIO, a worker and the viewer).
func TestHostileProbes(t *testing.T) {
	if testing.Short() {
		t.Skip("probes against real servers: skipped with -short")
	}
	p := newProbeRun(t)
	p.fileProbes()
	p.parserProbes()
	p.scheduleProbes()
	p.outputProbes() // after the schedules made a bundle
	p.storeProbes()
	p.viewerProbes()
	held := 0
	for _, pr := range p.probes {
		if err := pr.check(); err != nil {
			t.Errorf("probe %q: %v", pr.name, err)
			continue
		}
		held++
	}
	t.Logf("%d of %d probes held", held, len(p.probes))
	if log := p.worker.String(); strings.Contains(log, probeSecret) || strings.Contains(log, "PASS-42") || strings.Contains(log, "TOKEN-42") {
		t.Errorf("the worker's log shows a secret:\n%s", log)
	}
}

// newProbeRun starts the worker first and Temporal after it (a worker
// must wait for Temporal, not exit), with a local store and a schedule
// root holding a corpus.
func newProbeRun(t *testing.T) *probeRun {
	dir := t.TempDir()
	p := &probeRun{t: t, dir: dir, root: filepath.Join(dir, "root"), storeDir: filepath.Join(dir, "store"), worker: &syncBuffer{}}
	if err := auditfixture.Write(filepath.Join(p.root, "corpus"), auditfixture.Shortcut(), 1); err != nil {
		t.Fatal(err)
	}
	p.secret = writeFile(t, dir, "shadow", "root:$6$salt$"+probeSecret+":20228:0:99999:7:::\n")
	srv, err := devserver.New(temporalTool(t), t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	p.env = []string{"FLOORBENCH_TEMPORAL_ADDRESS=" + srv.Address, "FLOORBENCH_TEMPORAL_NAMESPACE=default", "FLOORBENCH_STORE_DIR=" + p.storeDir}
	health := testenv.Addr(testenv.FreePort(t))
	worker := exec.Command(binary, "worker", "--config", "", "--health-addr", health)
	worker.Env = append(append(os.Environ(), p.env...), "FLOORBENCH_SCHEDULE_ROOT="+p.root)
	worker.Stdout, worker.Stderr = p.worker, p.worker
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = worker.Process.Signal(syscall.SIGTERM); _ = worker.Wait() })
	var waited error // checked before Temporal starts
	for deadline := time.Now().Add(time.Minute); !strings.Contains(p.worker.String(), "waiting for Temporal"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			waited = fmt.Errorf("no waiting line: %s", p.worker.String())
			break
		}
	}
	p.add("a worker started before Temporal waits, saying so", func() error { return waited })
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	p.add("it polls once Temporal is up", func() error {
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
			if resp, err := http.Get("http://" + health + "/readyz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return nil
				}
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("not ready: %s", p.worker.String())
			}
		}
	})
	if err := p.probes[1].check(); err != nil {
		t.Fatal(err)
	}
	if p.st, err = store.NewLocal(p.storeDir); err != nil {
		t.Fatal(err)
	}
	return p
}

// fileProbes: special files and links as specs, models and gold.
func (p *probeRun) fileProbes() {
	fifo := filepath.Join(p.dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		p.t.Fatal(err)
	}
	sweep := func(name, model string) string {
		sys := writeFile(p.t, p.dir, name+".yaml", "family: silero\nmodel: {path: "+model+"}\n")
		return writeFile(p.t, p.dir, name+"-sweep.yaml", "corpora: [{name: tiny, generate: {preset: tiny, seed: 1}}]\nsystems: [{name: s, spec: "+sys+"}]\n")
	}
	link := filepath.Join(p.dir, "shadow.yaml")
	if err := os.Symlink(p.secret, link); err != nil {
		p.t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		args       []string
	}{
		{"submit -f a FIFO", "is a named pipe, not a regular file", []string{"submit", "-f", fifo, "--dry-run"}},
		{"a model at /dev/zero", "model /dev/zero: is a device, not a regular file", []string{"submit", "-f", sweep("zero", "/dev/zero"), "--dry-run"}},
		{"a model that is a FIFO", "is a named pipe, not a regular file", []string{"submit", "-f", sweep("fifo", fifo), "--dry-run"}},
		{"a spec that links to a password file", "line 1: unknown key (not quoted)", []string{"submit", "-f", link, "--dry-run"}},
		{"gold /dev/zero", "/dev/zero: is a device", []string{"score", "--gold", "/dev/zero", "--predictions", fifo}},
		{"gold a link to a password file", "invalid character", []string{"score", "--gold", link, "--predictions", fifo}},
	} {
		p.add(c.name, func() error {
			stdout, stderr, code := p.cli(c.args...)
			return refused(stdout, stderr, code, c.want)
		})
	}
}

// parserProbes: YAML bombs, deep nesting, huge specs, impossible gold.
func (p *probeRun) parserProbes() {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x]\n"
	for i, prev := 0, "a"; i < 9; i++ {
		name := string(rune('b' + i))
		bomb += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	gold := writeFile(p.t, p.dir, "gold.json", cliGold)
	entry := func(id string, n int) string {
		s := `{"conversation_id": "` + id + `"`
		for k := 1; k <= n; k++ {
			s += fmt.Sprintf(`, "speaker_%d": {"eot": [], "interruption": []}`, k)
		}
		return s + "}"
	}
	stated := strings.Replace(strings.Replace(cliGold, `"duration_s": 30.0`, `"duration_s": 30.0, "speakers": 2`, 1),
		`{"speaker": 2, "start": 8.0, "end": 9.0}`, `{"speaker": 1, "start": 9.0, "end": 4.0}`, 1)
	for _, c := range []struct {
		name, file, want string
		args             func(string) []string
	}{
		{"a YAML bomb", bomb, "", func(f string) []string { return []string{"submit", "-f", f, "--dry-run"} }},
		{"deep nesting", strings.Repeat("[", 100000), "", func(f string) []string { return []string{"submit", "-f", f, "--dry-run"} }},
		{"a spec over 1 MiB", "# " + strings.Repeat("x", 2<<20), "spec_bytes", func(f string) []string { return []string{"submit", "-f", f, "--dry-run"} }},
		{"a submission with speaker_3", `{"schema_version": 1, "predictions": [` + entry("c1", 3) + `, ` + entry("c2", 2) + `]}`, "speaker_3 is not in the gold",
			func(f string) []string { return []string{"score", "--gold", gold, "--predictions", f} }},
		{"floorbench gold with a reversed span", stated, "end 4 is not after start 9",
			func(f string) []string { return []string{"score", "--gold", f, "--predictions", gold} }},
	} {
		path := writeFile(p.t, p.dir, strings.ReplaceAll(c.name, " ", "-")+".in", c.file)
		want, args := c.want, c.args(path)
		p.add(c.name, func() error {
			stdout, stderr, code := p.cli(args...)
			if want == "" {
				want = path
			}
			return refused(stdout, stderr, code, want)
		})
	}
	p.add("a corpus id that climbs out of its folder", func() error {
		dir := filepath.Join(p.dir, "climb")
		if err := auditfixture.Write(dir, auditfixture.Small(), 1); err != nil {
			return err
		}
		data, err := os.ReadFile(filepath.Join(dir, "corpus.json"))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "corpus.json"), []byte(strings.Replace(string(data), `"id": "audit-`, `"id": "../../etc-`, 1)), 0o644); err != nil {
			return err
		}
		stdout, stderr, code := p.cli("corpus", "check", dir)
		return refused(stdout, stderr, code, "id (not quoted)")
	})
}

// outputProbes: --out that no command can fill.
func (p *probeRun) outputProbes() {
	for _, c := range []struct{ out, want string }{
		{"", "give a folder to write into"},
		{".", "is the current folder or one above it"},
		{filepath.Join(p.dir, "missing", "deeper"), "its parent folder"},
	} {
		p.add("bundle get --out "+c.out, func() error {
			stdout, stderr, code := p.cli("bundle", "get", "latest", "--out", c.out, "--force")
			return refused(stdout, stderr, code, c.want)
		})
	}
}

// scheduleProbes: what a scheduled worker reads, what a schedule shows,
// how much one request may start.
func (p *probeRun) scheduleProbes() {
	model := filepath.Join(p.root, "model.bin")
	if err := os.Symlink(p.secret, model); err != nil {
		p.t.Fatal(err)
	}
	sys := writeFile(p.t, p.root, "linked.yaml", "family: silero\nmodel: {path: model.bin}\n")
	shadowSpec := writeFile(p.t, p.root, "shadow-spec.yaml", "root:$6$salt$"+probeSecret+":20228:0:99999:7:::\n")
	corpusPath := filepath.Join(p.root, "corpus")
	var hookAuth atomic.Value
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, pw, _ := r.BasicAuth()
		hookAuth.Store(u + ":" + pw + " " + r.URL.Query().Get("token"))
	}))
	p.t.Cleanup(hook.Close)
	var followed atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { followed.Add(1) }))
	p.t.Cleanup(elsewhere.Close)
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL, http.StatusTemporaryRedirect)
	}))
	p.t.Cleanup(redirect.Close)
	creds := func(u string) string {
		return strings.Replace(u, "http://", "http://hookuser:PASS-42@", 1) + "/hook?token=TOKEN-42"
	}
	sweep := func(name, system string) string {
		return writeFile(p.t, p.dir, name+".yaml", "corpora: [{name: c, path: "+corpusPath+"}]\nsystems: [{name: s, "+system+"}]\nbootstrap: {resamples: 20, seed: 1}\n")
	}
	// runOnce creates a schedule, calls between (what changes after the
	// schedule was made), triggers a run and waits for its record.
	runOnce := func(name, spec string, between func() error, extra ...string) (nightly.RunView, error) {
		if _, stderr, code := p.cli(append([]string{"schedule", "create", name, "-f", spec, "--every", "24h"}, extra...)...); code != 0 {
			return nightly.RunView{}, fmt.Errorf("create: %s", stderr)
		}
		if err := between(); err != nil {
			return nightly.RunView{}, err
		}
		if _, stderr, code := p.cli("schedule", "trigger", name); code != 0 {
			return nightly.RunView{}, fmt.Errorf("trigger: %s", stderr)
		}
		for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
			runs, err := nightly.Runs(context.Background(), p.st, name)
			if err != nil {
				return nightly.RunView{}, err
			}
			if len(runs) > 0 && (runs[0].Error != "" || len(extra) == 0 || runs[0].Notification != nil) {
				return runs[0], nil
			}
			if time.Now().After(deadline) {
				return nightly.RunView{}, fmt.Errorf("no finished run of %s", name)
			}
		}
	}
	p.add("a scheduled model swapped for a link to a password file", func() error {
		// The spec is created while the model resolves to something under
		// the root, as in the original probe, then swapped.
		if err := os.Remove(model); err != nil {
			return err
		}
		writeFile(p.t, p.root, "model.bin", "weights")
		r, err := runOnce("linked", sweep("linked", "spec: "+sys), func() error {
			if err := os.Remove(model); err != nil {
				return err
			}
			return os.Symlink(p.secret, model)
		})
		if err != nil {
			return err
		}
		if !strings.Contains(r.Error, "outside the schedule root") {
			return fmt.Errorf("run %+v", r.Run)
		}
		return p.storeHoldsNoSecret()
	})
	p.add("a scheduled system spec that is a password file", func() error {
		writeFile(p.t, p.root, "shadow-spec.yaml", "family: rms\n")
		r, err := runOnce("shadowed", sweep("shadowed", "spec: "+shadowSpec), func() error {
			return os.WriteFile(shadowSpec, []byte("root:$6$salt$"+probeSecret+":20228:0:99999:7:::\n"), 0o644)
		})
		if err != nil {
			return err
		}
		if r.Error == "" || strings.Contains(r.Error, probeSecret) {
			return fmt.Errorf("run %+v", r.Run)
		}
		stdout, _, _ := p.cli("schedule", "show", "shadowed", "-o", "json")
		if strings.Contains(stdout, probeSecret) {
			return fmt.Errorf("schedule show quotes the secret")
		}
		return p.storeHoldsNoSecret()
	})
	p.add("webhook credentials are masked everywhere", func() error {
		r, err := runOnce("hooked", sweep("hooked", "builtin: rms"), noChange, "--notify", creds(hook.URL))
		if err != nil {
			return err
		}
		if got, _ := hookAuth.Load().(string); got != "hookuser:PASS-42 TOKEN-42" || !r.Notification.OK {
			return fmt.Errorf("the webhook got %q, notification %+v", got, r.Notification)
		}
		for _, args := range [][]string{{"schedule", "show", "hooked"}, {"schedule", "show", "hooked", "-o", "json"}, {"schedule", "ls", "-o", "json"}} {
			stdout, _, _ := p.cli(args...)
			if strings.Contains(stdout, "PASS-42") || strings.Contains(stdout, "TOKEN-42") {
				return fmt.Errorf("%v shows the credentials", args)
			}
		}
		return p.storeHoldsNo("PASS-42", "TOKEN-42")
	})
	p.add("a webhook that redirects is not followed", func() error {
		r, err := runOnce("redirected", sweep("redirected", "builtin: rms"), noChange, "--notify", creds(redirect.URL))
		if err != nil {
			return err
		}
		if r.Notification.OK || !strings.Contains(r.Notification.Error, "redirects are not followed") || followed.Load() != 0 {
			return fmt.Errorf("notification %+v, followed %d", r.Notification, followed.Load())
		}
		return nil
	})
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://127.0.0.1:9/a hook",
		"file:///etc/passwd", "gopher://127.0.0.1:70/", "ftp://127.0.0.1/", "unix:///var/run/docker.sock", "javascript:alert(1)"} {
		p.add("--notify "+u, func() error {
			stdout, stderr, code := p.cli("schedule", "create", "refused", "-f", sweep("refused", "builtin: rms"), "--every", "24h", "--notify", u)
			return refused(stdout, stderr, code, "--notify")
		})
	}
	p.add("a backfill of 56 years of hourly runs", func() error {
		spec := sweep("hourly", "builtin: rms")
		if _, stderr, code := p.cli("schedule", "create", "hourly", "-f", spec, "--every", "1h"); code != 0 {
			return fmt.Errorf("create: %s", stderr)
		}
		if _, stderr, code := p.cli("schedule", "pause", "hourly"); code != 0 {
			return fmt.Errorf("pause: %s", stderr)
		}
		stdout, stderr, code := p.cli("schedule", "backfill", "hourly", "--from", "1970-01-01T00:00:00Z", "--to", "2026-12-01T00:00:00Z")
		return refused(stdout, stderr, code, "runs is over the limit of 500 runs")
	})
	p.add("schedule history of an unknown system", func() error {
		stdout, stderr, code := p.cli("schedule", "history", "hooked", "--system", "<x>", "--temporal-address", strings.TrimPrefix(p.env[0], "FLOORBENCH_TEMPORAL_ADDRESS="))
		return refused(stdout, stderr, code, `--system "<x>": no run of schedule hooked evaluated`)
	})
}

func noChange() error { return nil }

// storeHoldsNo fails when any object of the store holds any of secrets.
func (p *probeRun) storeHoldsNo(secrets ...string) error {
	keys, err := p.st.List(context.Background(), "")
	if err != nil {
		return err
	}
	for _, k := range keys {
		data, err := store.GetBytes(context.Background(), p.st, k)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if strings.Contains(string(data), s) {
				return fmt.Errorf("store object %s holds %q", k, s)
			}
		}
	}
	return nil
}

func (p *probeRun) storeHoldsNoSecret() error { return p.storeHoldsNo(probeSecret) }

// storeProbes: a missing bucket, and verify finding flipped bytes.
func (p *probeRun) storeProbes() {
	m := testenv.StartMinIO(p.t)
	p.add("a bucket that does not exist", func() error {
		env := []string{"FLOORBENCH_S3_ENDPOINT=" + m.Addr, "FLOORBENCH_S3_BUCKET=nobucket", "FLOORBENCH_S3_ACCESS_KEY=" + m.User, "FLOORBENCH_S3_SECRET_KEY=" + m.Secret}
		for _, args := range [][]string{{"bundle", "ls"}, {"store", "verify"}} {
			stdout, stderr, code, _ := runWith(p.t, env, append(args, "--config", "")...)
			if err := refused(stdout, stderr, code, "bucket nobucket", "no such bucket"); err != nil {
				return fmt.Errorf("%v: %w", args, err)
			}
		}
		return nil
	})
	p.add("store verify finds a flipped byte in results.json", func() error {
		results, err := filepath.Glob(filepath.Join(p.storeDir, "bundles", "*", "results.json"))
		if err != nil || len(results) == 0 {
			return fmt.Errorf("no bundle: %v", err)
		}
		data, err := os.ReadFile(results[0])
		if err != nil {
			return err
		}
		i := strings.IndexAny(string(data[len(data)/2:]), "123456789") + len(data)/2
		changed := slices.Clone(data)
		changed[i] = '0'
		if err := os.WriteFile(results[0], changed, 0o644); err != nil {
			return err
		}
		defer os.WriteFile(results[0], data, 0o644)
		stdout, _, code := p.cli("store", "verify")
		if code != 1 || !strings.Contains(stdout, "results.json: sha256 ") {
			return fmt.Errorf("exit %d, %q", code, stdout)
		}
		return nil
	})
}

// viewerProbes: URLs an attacker sends to `floorbench serve`, and many
// readers at once.
func (p *probeRun) viewerProbes() {
	addr := testenv.Addr(testenv.FreePort(p.t))
	serve := exec.Command(binary, "serve", "--addr", addr, "--config", "", "--store-dir", p.storeDir)
	out, err := serve.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { _ = serve.Process.Signal(syscall.SIGTERM); _ = serve.Wait() })
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		p.t.Fatal(err)
	}
	base := "http://" + addr
	for _, path := range []string{"/bundles/..%2F..%2Fetc/", "/bundles/%00/", "/bundles/ffffffffffffffffffffffff/event?i=99999999999999999999",
		"/bundles/ffffffffffffffffffffffff/event?i=-1", "/schedules/..%2Fx/", "/bundles/x/figures/..%2F..%2Fcorpus.json", "/diff?old=../x&new=%00"} {
		p.add("GET "+path, func() error {
			resp, err := http.Get(base + path)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusBadRequest {
				return fmt.Errorf("status %d, want 404 or 400", resp.StatusCode)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" && resp.StatusCode == http.StatusNotFound {
				return fmt.Errorf("no nosniff header")
			}
			return nil
		})
	}
	p.add("the schedule page shows no credential or secret", func() error {
		for _, name := range []string{"hooked", "shadowed"} {
			resp, err := http.Get(base + "/schedules/" + name + "/")
			if err != nil {
				return err
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			for _, s := range []string{probeSecret, "PASS-42", "TOKEN-42"} {
				if strings.Contains(string(body), s) {
					return fmt.Errorf("/schedules/%s/ shows %q", name, s)
				}
			}
		}
		return nil
	})
	p.add("a half-sent request is closed", func() error {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		defer c.Close()
		fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: x\r\n") // and never the end of the headers
		_ = c.SetReadDeadline(time.Now().Add(time.Minute))
		_, err = io.Copy(io.Discard, c)
		return err // nil: the server closed the connection
	})
	p.add("forty readers at once keep the viewer under 300 MB", func() error {
		id, err := latestBundle(p.storeDir)
		if err != nil {
			return err
		}
		var wg sync.WaitGroup
		for range 40 {
			wg.Go(func() {
				for range 5 {
					for _, path := range []string{"/", "/bundles/" + id + "/", "/bundles/" + id + "/events"} {
						if resp, err := http.Get(base + path); err == nil {
							_, _ = io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
						}
					}
				}
			})
		}
		wg.Wait()
		if rss := peakRSS(p.t, serve.Process.Pid); rss > viewerPeakLimit {
			return fmt.Errorf("peak RSS %d MB", rss>>20)
		}
		return nil
	})
}

// latestBundle is a bundle id of the store.
func latestBundle(storeDir string) (string, error) {
	entries, err := os.ReadDir(filepath.Join(storeDir, "bundles"))
	if err != nil || len(entries) == 0 {
		return "", fmt.Errorf("no bundle in %s: %v", storeDir, err)
	}
	return url.PathEscape(entries[0].Name()), nil
}
