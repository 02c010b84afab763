package temporalclient_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/devserver"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/store/s3"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/temporalclient"
	"github.com/floorbench/floorbench/internal/testenv"
)

// The sweep every integration test runs: small enough for CI, real
// generation (espeak-ng, flite), real detectors, real bootstrap.
const testSpec = `name: integration
corpora:
  - name: tiny
    generate: {preset: tiny, seed: 3}
systems:
  - {name: rms, builtin: rms}
  - {name: webrtcvad, builtin: webrtcvad, params: {mode: "3"}}
bootstrap: {resamples: 200, seed: 5}
concurrency: 3
`

// floorbenchBinary builds the command once, for the tests that run it as
// workers or as a submitter (the -short run needs none).
var floorbenchBinary = sync.OnceValues(func() (string, error) {
	return testenv.Build("../../cmd/floorbench", "-buildvcs=auto")
})

// binary returns the built command, failing the test if it does not build.
func binary(t *testing.T) string {
	t.Helper()
	path, err := floorbenchBinary()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// recordHistories, when set, saves the histories of the undisturbed run's
// workflows into that folder (workflows/testdata) for the replay test.
var (
	recordHistories = flag.String("record-histories", "", "write the undisturbed sweep's workflow histories into this folder")
	historyPrefix   = flag.String("history-prefix", "", "prefix of the recorded history files (keeps those of earlier workflow versions)")
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(m.Run())
}

// harness is one real Temporal dev server, one real MinIO bucket and
// floorbench workers running as separate processes.
type harness struct {
	t      *testing.T
	temp   *devserver.Server
	minio  *testenv.MinIO
	bucket string
	cfg    config.Config
	s3     *s3.Store // the bucket, opened on first use
}

// bucketStore is the harness's bucket as a store.
func (h *harness) bucketStore() *s3.Store {
	h.t.Helper()
	if h.s3 == nil {
		h.s3 = h.minio.Store(h.t, h.bucket)
	}
	return h.s3
}

func newHarness(t *testing.T, m *testenv.MinIO, bucket string) *harness {
	t.Helper()
	if testing.Short() {
		t.Skip("a sweep against real servers: skipped with -short")
	}
	srv, err := devserver.New(testenv.Tool(t, "temporal", "temporal"), t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	cfg := config.Config{TemporalAddress: srv.Address, Namespace: "default",
		S3Endpoint: m.Addr, S3Bucket: bucket, S3AccessKey: m.User, S3SecretKey: m.Secret}
	m.CreateBucket(t, bucket)
	return &harness{t: t, temp: srv, minio: m, bucket: bucket, cfg: cfg}
}

// env is the environment that points a floorbench process at the
// harness's Temporal and MinIO.
func (h *harness) env() []string {
	return []string{"FLOORBENCH_TEMPORAL_ADDRESS=" + h.cfg.TemporalAddress, "FLOORBENCH_TEMPORAL_NAMESPACE=default",
		"FLOORBENCH_S3_ENDPOINT=" + h.cfg.S3Endpoint, "FLOORBENCH_S3_BUCKET=" + h.bucket,
		"FLOORBENCH_S3_ACCESS_KEY=" + h.minio.User, "FLOORBENCH_S3_SECRET_KEY=" + h.minio.Secret}
}

// startWorker runs `floorbench worker` on every queue as a child process
// and waits until its readiness probe answers.
func (h *harness) startWorker() *exec.Cmd {
	h.t.Helper()
	return h.startWorkerIn("")
}

// startWorkerIn starts a worker in working directory dir ("": the test's)
// with extra arguments.
func (h *harness) startWorkerIn(dir string, args ...string) *exec.Cmd {
	h.t.Helper()
	health := testenv.Addr(testenv.FreePort(h.t))
	cmd := exec.Command(binary(h.t), append([]string{"worker", "--config", "", "--health-addr", health}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), h.env()...)
	log, err := os.Create(filepath.Join(h.t.TempDir(), "worker.log"))
	if err != nil {
		h.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_, _ = cmd.Process.Wait()
	})
	waitReady(h.t, "http://"+health+"/readyz")
	return cmd
}

// waitReady polls a readiness probe until it answers 200.
func waitReady(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker not ready at %s after a minute (last: %v)", url, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// submit resolves the test spec and submits it; it returns the workflow id.
func (h *harness) submit(ctx context.Context) string {
	h.t.Helper()
	s, err := spec.Parse("test spec", []byte(testSpec), limits.Default())
	if err != nil {
		h.t.Fatal(err)
	}
	in, err := sweep.Resolve(s, detect.RuntimeFromEnv())
	if err != nil {
		h.t.Fatal(err)
	}
	cl, err := temporalclient.Dial(ctx, h.cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	defer cl.Close()
	run, err := temporalclient.Submit(ctx, cl, in)
	if err != nil {
		h.t.Fatal(err)
	}
	return run.GetID()
}

// wait follows the sweep, calling during once with each status until it
// returns true, and returns the final status.
func (h *harness) wait(ctx context.Context, id string, during func(temporalclient.Status) bool) temporalclient.Status {
	h.t.Helper()
	cl, err := temporalclient.Dial(ctx, h.cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	defer cl.Close()
	show, fired := faultGuard(during)
	if during != nil {
		h.bucketStore() // made here: the injector runs on its own goroutine
	}
	injecting, stopInjecting := context.WithCancel(ctx)
	injected := make(chan struct{})
	go func() {
		defer close(injected)
		injectFault(injecting, cl, id, show, fired)
	}()
	st, err := temporalclient.Watch(ctx, cl, id, 300*time.Millisecond, nil)
	stopInjecting()
	<-injected
	if err != nil {
		h.t.Fatal(err)
	}
	if st.State != "completed" {
		h.t.Fatalf("sweep %s: %s %s", id, st.State, st.Error)
	}
	if !fired() {
		h.t.Fatal("the fault was never injected: the sweep finished first")
	}
	return st
}

// injectFault offers show the sweep's status every 100 ms until the fault
// is injected or the sweep has ended. It polls on its own rather than
// through Watch, which spaces its polls a second per request: a tiny sweep
// can finish between two of them.
func injectFault(ctx context.Context, cl client.Client, id string, show func(temporalclient.Status), fired func() bool) {
	for !fired() {
		if st, err := temporalclient.GetStatus(ctx, cl, id); err == nil {
			show(st)
			if st.State != "running" {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// faultGuard wraps a fault injector for injectFault: during is offered each
// status of the running sweep until it injects its fault (returns true).
// The poller hands over the final status too; a fault injected once the sweep
// has completed would prove nothing, so statuses of a sweep that is not
// running are never offered. fired reports whether the fault was injected
// (always true without an injector).
func faultGuard(during func(temporalclient.Status) bool) (show func(temporalclient.Status), fired func() bool) {
	done := during == nil
	return func(st temporalclient.Status) {
		if !done && st.State == "running" && during(st) {
			done = true
		}
	}, func() bool { return done }
}

// tracksDone is how many tracks the running sweep has inferred: its
// progress query's count or, when a busy worker leaves the query
// unanswered, the tracks already in the bucket (two files, eot and int,
// per track).
func (h *harness) tracksDone(ctx context.Context, st temporalclient.Status) int {
	h.t.Helper()
	if st.Progress.TracksInferred > 0 {
		return st.Progress.TracksInferred
	}
	listed, err := h.bucketStore().List(ctx, "tracks/")
	if err != nil {
		return 0
	}
	return len(listed) / 2
}

// contents returns the SHA-256 of every object in the bucket by key (the
// bundle's manifest.json without its creation time) and results.json of
// bundle id.
func (h *harness) contents(ctx context.Context, id string) (map[string]string, []byte) {
	h.t.Helper()
	st := h.bucketStore()
	listed, err := st.List(ctx, "")
	if err != nil {
		h.t.Fatal(err)
	}
	objects := map[string]string{}
	for _, k := range listed {
		data, err := store.GetBytes(ctx, st, k)
		if err != nil {
			h.t.Fatal(err)
		}
		if k == keys.Sum(keys.Bundle(id, "manifest.json")) {
			continue // the sha256 of a manifest whose created time differs by design
		}
		if k == keys.Bundle(id, "manifest.json") {
			var m bundle.Manifest
			if err := json.Unmarshal(data, &m); err != nil {
				h.t.Fatal(err)
			}
			m.Created = ""
			if data, err = json.Marshal(m); err != nil {
				h.t.Fatal(err)
			}
		}
		sum := sha256.Sum256(data)
		objects[k] = hex.EncodeToString(sum[:])
	}
	results, err := store.GetBytes(ctx, st, keys.Bundle(id, "results.json"))
	if err != nil {
		h.t.Fatal(err)
	}
	return objects, results
}

// differences lists the keys whose content differs between two buckets,
// and those only one holds.
func differences(want, got map[string]string) []string {
	var out []string
	for k, w := range want {
		if g, ok := got[k]; !ok {
			out = append(out, "missing "+k)
		} else if g != w {
			out = append(out, "differs "+k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			out = append(out, "extra "+k)
		}
	}
	slices.Sort(out)
	return out
}

func deadline(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestSweepsAgainstRealServers runs the sweep undisturbed, then with a
// fault injected in each of three runs (each on a fresh Temporal and a fresh
// bucket, so nothing is reused): every run must end in a bundle whose
// results.json is byte-identical to the undisturbed one, with exactly the
// same objects in the bucket.
func TestSweepsAgainstRealServers(t *testing.T) {
	if testing.Short() {
		t.Skip("fault tests against real servers: skipped with -short")
	}
	m := testenv.StartMinIO(t)
	ctx := deadline(t)

	var baseKeys map[string]string
	var baseResults []byte
	var baseBundle string
	t.Run("undisturbed, then resubmitted", func(t *testing.T) {
		h := newHarness(t, m, "undisturbed")
		h.startWorker()
		id := h.submit(ctx)
		st := h.wait(ctx, id, nil)
		baseBundle = st.BundleID
		baseKeys, baseResults = h.contents(ctx, st.BundleID)
		if *recordHistories != "" {
			h.saveHistories(ctx, id, "corpus-tiny", "eval-rms-tiny")
		}
		// The same spec again is the same run and the same bundle.
		if again := h.submit(ctx); again != id {
			t.Fatalf("resubmission started %s, want the existing %s", again, id)
		}
		if st2 := h.wait(ctx, id, nil); st2.BundleID != st.BundleID {
			t.Fatalf("resubmission gave bundle %s, want %s", st2.BundleID, st.BundleID)
		}
		if keys, _ := h.contents(ctx, st.BundleID); len(differences(baseKeys, keys)) > 0 {
			t.Fatalf("resubmission changed objects: %q", differences(baseKeys, keys))
		}
	})
	if baseResults == nil {
		t.FailNow()
	}
	check := func(t *testing.T, h *harness, st temporalclient.Status) {
		keys, results := h.contents(ctx, st.BundleID)
		if st.BundleID != baseBundle || !bytes.Equal(results, baseResults) {
			t.Errorf("bundle %s differs from the undisturbed run's %s", st.BundleID, baseBundle)
		}
		if d := differences(baseKeys, keys); len(d) > 0 {
			t.Errorf("the bucket differs from the undisturbed run's in %d objects: %q", len(d), d[:min(len(d), 10)])
		}
	}
	t.Run("worker killed with SIGKILL and restarted", func(t *testing.T) {
		h := newHarness(t, m, "worker-killed")
		w := h.startWorker()
		id := h.submit(ctx)
		st := h.wait(ctx, id, func(st temporalclient.Status) bool {
			if h.tracksDone(ctx, st) < 4 {
				return false
			}
			_ = w.Process.Kill()
			_, _ = w.Process.Wait()
			h.startWorker()
			return true
		})
		check(t, h, st)
	})
	t.Run("MinIO stopped for 20 s", func(t *testing.T) {
		h := newHarness(t, m, "minio-stopped")
		h.startWorker()
		id := h.submit(ctx)
		st := h.wait(ctx, id, func(st temporalclient.Status) bool {
			if st.Progress.ConversationsGenerated < 3 {
				return false
			}
			m.Stop()
			time.Sleep(20 * time.Second)
			m.Start()
			return true
		})
		check(t, h, st)
	})
	t.Run("Temporal killed with SIGKILL and restarted on its database", func(t *testing.T) {
		h := newHarness(t, m, "temporal-restarted")
		h.startWorker()
		id := h.submit(ctx)
		st := h.wait(ctx, id, func(st temporalclient.Status) bool {
			if h.tracksDone(ctx, st) < 4 {
				return false
			}
			h.temp.Crash()
			if err := h.temp.Start(ctx); err != nil {
				t.Error(err) // on the injector's goroutine: Fatal would stop only it
			}
			return true
		})
		check(t, h, st)
	})
}

func TestUnreachableServersAreOneClearError(t *testing.T) {
	cfg := config.Config{TemporalAddress: testenv.Addr(testenv.FreePort(t)), Namespace: "default"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := temporalclient.Dial(ctx, cfg); err == nil || !bytes.Contains([]byte(err.Error()), []byte("cannot reach Temporal at "+cfg.TemporalAddress)) {
		t.Fatalf("error %v", err)
	}
}

// saveHistories writes the sweep's history and those of some of its
// children (a corpus, an evaluation and a model workflow, by their names
// under the sweep) as JSON files named after the workflow type (with
// -history-prefix), and adds them to the folder's histories.json.
func (h *harness) saveHistories(ctx context.Context, sweepID, corpusChild, evalChild string, modelChild ...string) {
	h.t.Helper()
	cl, err := temporalclient.Dial(ctx, h.cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	defer cl.Close()
	ids := []string{sweepID, sweepID + "/" + corpusChild, sweepID + "/" + evalChild}
	names := []string{"sweep", "corpus", "evaluation"}
	for _, m := range modelChild {
		ids, names = append(ids, sweepID+"/"+m), append(names, "model")
	}
	writeHistories(ctx, h.t, cl, ids, names)
}

// writeHistories writes the histories of the workflows ids into the
// -record-histories folder as <prefix><name>-history.json and adds them
// to its histories.json.
func writeHistories(ctx context.Context, t *testing.T, cl client.Client, ids, names []string) {
	t.Helper()
	index := map[string]string{}
	if data, err := os.ReadFile(filepath.Join(*recordHistories, "histories.json")); err == nil {
		if err := json.Unmarshal(data, &index); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range ids {
		file := *historyPrefix + names[i] + "-history.json"
		index[file] = id
		var events []*historypb.HistoryEvent
		it := cl.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			events = append(events, e)
		}
		data, err := protojson.MarshalOptions{Indent: "  "}.Marshal(&historypb.History{Events: events})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*recordHistories, file), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The replayer needs each history's workflow id: child ids derive from it.
	data, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*recordHistories, "histories.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
