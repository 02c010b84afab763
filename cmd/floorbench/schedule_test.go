//go:build !floorbench_light

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/devserver"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/temporalclient"
)

// nightlyEnv is a real Temporal dev server, a local store, floorbench
// workers in this process (stopped and restarted at will) and a sweep
// spec over the audit fixture corpus with one system read from a spec
// file, for the tests of `floorbench schedule`.
type nightlyEnv struct {
	t        *testing.T
	cfg      config.Config
	store    store.Store
	storeDir string
	dir      string
	spec     string // the sweep spec file
	system   string // the system spec file the sweep names
	workers  *temporalclient.Workers
	temporal *devserver.Server
}

// recordNightly, when set, saves the histories of a regressed nightly run
// and of a failed one into that folder (workflows/testdata) for the replay
// test.
var recordNightly = flag.String("record-nightly", "", "write a nightly run's workflow history into this folder")

// saveNightlyHistory writes the history of workflow id into file and adds
// it to the folder's histories.json.
func (e *nightlyEnv) saveNightlyHistory(id, file string) {
	e.t.Helper()
	ctx := context.Background()
	cl, err := temporalclient.Dial(ctx, e.cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	defer cl.Close()
	var events []*historypb.HistoryEvent
	it := cl.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			e.t.Fatal(err)
		}
		events = append(events, ev)
	}
	data, err := protojson.MarshalOptions{Indent: "  "}.Marshal(&historypb.History{Events: events})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*recordNightly, file), data, 0o644); err != nil {
		e.t.Fatal(err)
	}
	index := map[string]string{}
	indexPath := filepath.Join(*recordNightly, "histories.json")
	if data, err := os.ReadFile(indexPath); err == nil {
		if err := json.Unmarshal(data, &index); err != nil {
			e.t.Fatal(err)
		}
	}
	index[file] = id
	if data, err = json.MarshalIndent(index, "", "  "); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(indexPath, append(data, '\n'), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// writeProbs writes the system's score tracks (an external system's
// "model") into probs/ beside its spec, replacing what is there: a score
// of 0.9 at every gold anchor of both tasks, or with worse, at a random
// half of them only, so about half the turn ends and interruptions are
// missed.
func (e *nightlyEnv) writeProbs(worse bool) {
	e.t.Helper()
	g, err := corpus.Gold(filepath.Join(e.dir, "corpus"), "", limits.Default())
	if err != nil {
		e.t.Fatal(err)
	}
	const fps = 50
	rng := rand.New(rand.NewPCG(1, 2))
	for i, task := range []floor.Task{floor.TaskEOT, floor.TaskINT} {
		p := &score.ProbsFile{Task: task, FrameRate: fps}
		for _, c := range g.Conversations {
			n := int(math.Floor(c.Duration * fps))
			cp := score.ConversationProbs{ID: c.ID, Speakers: [][]float64{make([]float64, n), make([]float64, n)}}
			for _, a := range c.Task(task).Positives {
				if worse && rng.IntN(2) == 0 {
					continue
				}
				cp.Speakers[a.Speaker-1][min(int(a.Time*fps), n-1)] = 0.9
			}
			p.Conversations = append(p.Conversations, cp)
		}
		var buf bytes.Buffer
		if err := score.WriteProbs(&buf, p); err != nil {
			e.t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(e.dir, "probs"), 0o755); err != nil {
			e.t.Fatal(err)
		}
		writeFile(e.t, filepath.Join(e.dir, "probs"), detect.ProbsFileNames[i], buf.String())
	}
}

func newNightlyEnv(t *testing.T) *nightlyEnv {
	t.Helper()
	return newNightlyEnvOn(t, false)
}

// newNightlyEnvOn is newNightlyEnv with, when persist is set, a Temporal
// dev server that keeps its state in a database file, so that it can be
// crashed and restarted on it.
func newNightlyEnvOn(t *testing.T, persist bool) *nightlyEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("schedules against a real Temporal dev server: skipped with -short")
	}
	srv, err := devserver.New(temporalTool(t), t.TempDir(), persist)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	dir := t.TempDir()
	e := &nightlyEnv{t: t, dir: dir, storeDir: filepath.Join(dir, "store"), temporal: srv,
		cfg: config.Config{TemporalAddress: srv.Address, Namespace: "default", StoreDir: filepath.Join(dir, "store")}}
	if e.store, err = e.cfg.OpenStore(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := auditfixture.Write(filepath.Join(dir, "corpus"), auditfixture.Shortcut(), 1); err != nil {
		t.Fatal(err)
	}
	e.writeProbs(false)
	e.system = writeFile(t, dir, "oracle.yaml", "family: external\nparams: {dir: probs}\n")
	e.spec = writeFile(t, dir, "sweep.yaml", "name: nightly\ncorpora: [{name: fixture, path: "+filepath.Join(dir, "corpus")+"}]\n"+
		"systems: [{name: oracle, spec: "+e.system+"}]\nbootstrap: {resamples: 200, seed: 1}\nconcurrency: 2\n")
	e.startWorkers()
	t.Cleanup(e.stopWorkers)
	return e
}

func (e *nightlyEnv) startWorkers() {
	e.t.Helper()
	cl, err := temporalclient.Dial(context.Background(), e.cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	q := []string{spec.QueueCPU, spec.QueueSynth, spec.QueueGPU}
	if e.workers, err = temporalclient.StartWorkers(cl, &activities.Activities{Store: e.store, ScheduleRoot: e.dir}, q, spec.QueueCPU, activities.Admission{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *nightlyEnv) stopWorkers() {
	if e.workers != nil {
		e.workers.Stop()
		e.workers = nil
	}
}

// cli runs floorbench against the environment's Temporal and store.
func (e *nightlyEnv) cli(args ...string) (string, string, int) {
	e.t.Helper()
	return e.cliEnv(nil, args...)
}

// cliEnv is cli with more environment variables.
func (e *nightlyEnv) cliEnv(more []string, args ...string) (string, string, int) {
	e.t.Helper()
	env := []string{"FLOORBENCH_TEMPORAL_ADDRESS=" + e.cfg.TemporalAddress, "FLOORBENCH_TEMPORAL_NAMESPACE=default", "FLOORBENCH_STORE_DIR=" + e.storeDir}
	out, errOut, code, _ := runWith(e.t, append(env, more...), append(args, "--config", "")...)
	return out, errOut, code
}

// mustCLI runs floorbench and fails the test unless it exits 0.
func (e *nightlyEnv) mustCLI(args ...string) string {
	e.t.Helper()
	out, errOut, code := e.cli(args...)
	if code != 0 {
		e.t.Fatalf("floorbench %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
	}
	return out
}

// show is `schedule show NAME -o json`.
func (e *nightlyEnv) show(name string) scheduleView {
	e.t.Helper()
	var v scheduleView
	if err := json.Unmarshal([]byte(e.mustCLI("schedule", "show", name, "-o", "json")), &v); err != nil {
		e.t.Fatal(err)
	}
	return v
}

// waitRuns waits until the schedule's store holds n finished runs and
// returns them, oldest first.
func (e *nightlyEnv) waitRuns(name string, n int) []nightly.RunView {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		runs, err := nightly.Runs(context.Background(), e.store, name)
		if err != nil {
			e.t.Fatal(err)
		}
		if len(runs) >= n {
			return runs
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("schedule %s: %d finished runs after 5 minutes, want %d", name, len(runs), n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitNotified waits until run's notification is recorded.
func (e *nightlyEnv) waitNotified(name string, n int) []nightly.RunView {
	e.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		runs := e.waitRuns(name, n)
		if runs[n-1].Notification != nil {
			return runs
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("run %d of %s: no notification recorded", n, name)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (e *nightlyEnv) verdict(r nightly.RunView) *compare.Verdict {
	e.t.Helper()
	t, err := time.Parse(time.RFC3339, r.Scheduled)
	if err != nil {
		e.t.Fatal(err)
	}
	data, err := store.GetBytes(context.Background(), e.store, keys.ScheduleRun(r.Schedule, t)+nightly.VerdictFile)
	if err != nil {
		e.t.Fatal(err)
	}
	var v compare.Verdict
	if err := json.Unmarshal(data, &v); err != nil {
		e.t.Fatal(err)
	}
	return &v
}

// storedFiles are the store's files outside schedules/ (and their
// recorded sums) with their modification times: what a run computed.
func (e *nightlyEnv) storedFiles() map[string]time.Time {
	e.t.Helper()
	out := map[string]time.Time{}
	err := filepath.WalkDir(e.storeDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(e.storeDir, path)
		if strings.HasPrefix(filepath.ToSlash(rel), "schedules/") || strings.HasPrefix(filepath.ToSlash(rel), keys.Sum("schedules/")) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[rel] = info.ModTime()
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// webhook is an HTTP server on 127.0.0.1 that keeps the verdicts posted
// to it.
type webhook struct {
	*httptest.Server
	mu       sync.Mutex
	verdicts []compare.Verdict
}

func newWebhook(t *testing.T) *webhook {
	w := &webhook{}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var v compare.Verdict
		if r.Method != http.MethodPost || json.Unmarshal(body, &v) != nil {
			http.Error(rw, "want a verdict posted", http.StatusBadRequest)
			return
		}
		w.mu.Lock()
		w.verdicts = append(w.verdicts, v)
		w.mu.Unlock()
	}))
	t.Cleanup(w.Close)
	return w
}

func (w *webhook) received() []compare.Verdict {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]compare.Verdict(nil), w.verdicts...)
}

func onlyOutcome(v *compare.Verdict, o compare.Outcome) bool {
	return len(v.Rows) > 0 && v.Counts[o] == len(v.Rows)
}

// A schedule triggered twice with unchanged inputs computes nothing the
// second time and finds everything identical, in the same bundle; a system
// spec replaced at the same path with a worse one makes the next run
// regressed, with its CI in verdict.json, and bundle diff exit 1; the
// webhook receives every verdict; pause, unpause and delete work.
func TestScheduleNightlyRegression(t *testing.T) {
	e := newNightlyEnv(t)
	hook := newWebhook(t)
	e.mustCLI("schedule", "create", "nightly", "-f", e.spec, "--every", "24h", "--notify", hook.URL)

	e.mustCLI("schedule", "trigger", "nightly")
	first := e.waitNotified("nightly", 1)[0]
	if v := e.verdict(first); !onlyOutcome(v, compare.New) || first.Baseline != "" {
		t.Fatalf("first run: baseline %q, verdict %+v; want every row new", first.Baseline, v.Counts)
	}
	computed := e.storedFiles()

	e.mustCLI("schedule", "trigger", "nightly")
	second := e.waitNotified("nightly", 2)[1]
	if v := e.verdict(second); !onlyOutcome(v, compare.Identical) || second.Baseline != first.BundleID {
		t.Fatalf("second run: baseline %s, verdict %+v; want every row identical against %s", second.Baseline, v.Counts, first.BundleID)
	}
	if second.BundleID != first.BundleID {
		t.Errorf("unchanged inputs gave bundle %s, then %s", first.BundleID, second.BundleID)
	}
	if again := e.storedFiles(); len(again) != len(computed) {
		t.Errorf("the second run stored %d files outside its run folder, the first %d", len(again), len(computed))
	} else {
		for k, mod := range computed {
			if !again[k].Equal(mod) {
				t.Errorf("the second run rewrote %s", k)
			}
		}
	}

	e.writeProbs(true)
	e.mustCLI("schedule", "trigger", "nightly")
	third := e.waitNotified("nightly", 3)[2]
	v := e.verdict(third)
	var eot *compare.PairedRow
	for i := range v.Rows {
		if v.Rows[i].System == "oracle" && v.Rows[i].Task == "eot" {
			eot = &v.Rows[i]
		}
	}
	if eot == nil || eot.Verdict != compare.Regressed || eot.Recall == nil || !(float64(eot.Recall.Hi) < -compare.DefaultTolerance) {
		t.Fatalf("after the system spec got worse: %+v; want eot regressed with a recall CI below -tolerance", eot)
	}
	if third.BundleID == second.BundleID || third.Baseline != second.BundleID {
		t.Errorf("third run: bundle %s baseline %s; want a new bundle against %s", third.BundleID, third.Baseline, second.BundleID)
	}
	if _, errOut, code := e.cli("bundle", "diff", second.BundleID, third.BundleID); code != 1 || !strings.Contains(errOut, "regression") {
		t.Errorf("bundle diff of the regressed run: exit %d, %q; want 1", code, errOut)
	}
	md, err := store.GetBytes(context.Background(), e.store, keys.ScheduleRun("nightly", mustTime(t, third.Scheduled))+nightly.VerdictMarkdown)
	if err != nil || !strings.Contains(string(md), "| regressed |") {
		t.Errorf("verdict.md of the regressed run: %v\n%s", err, md)
	}
	t.Logf("verdict.md of the regressed run:\n%s", md)

	if *recordNightly != "" {
		e.saveNightlyHistory(third.WorkflowID, "nightly-history.json")
	}

	got := hook.received()
	if len(got) != 3 || !onlyOutcome(&got[1], compare.Identical) || got[2].Counts[compare.Regressed] == 0 {
		t.Errorf("webhook received %d verdicts %+v; want new, identical, regressed", len(got), got)
	}
	if s := e.show("nightly"); len(s.Runs) != 3 || s.Runs[2].Notification == nil || !s.Runs[2].Notification.OK || s.Runs[2].CodeVersion == "" {
		t.Errorf("schedule show: %+v", s)
	}
	t.Logf("schedule show:\n%s", e.mustCLI("schedule", "show", "nightly"))

	var history []nightly.Point
	if err := json.Unmarshal([]byte(e.mustCLI("schedule", "history", "nightly", "--system", "oracle", "--metric", "eot.recall", "-o", "json")), &history); err != nil {
		t.Fatal(err)
	}
	if len(history) != 3 || history[0].Value != 1 || history[1].Value != 1 || !(history[2].Value < 0.8) || !(history[2].Lo <= history[2].Value && history[2].Value <= history[2].Hi) {
		t.Errorf("history of eot.recall: %+v; want 1, 1, then the drop inside its CI", history)
	}
	if csv := e.mustCLI("schedule", "history", "nightly", "--metric", "int.fp_rate", "-o", "csv"); !strings.HasPrefix(csv, "scheduled,bundle,corpus,system,metric,value,ci_lo,ci_hi,error\n") || strings.Count(csv, "\n") != 4 {
		t.Errorf("history -o csv:\n%s", csv)
	}

	var list []temporalclient.ScheduleState
	if err := json.Unmarshal([]byte(e.mustCLI("schedule", "ls", "-o", "json")), &list); err != nil || len(list) != 1 || list[0].Name != "nightly" || list[0].Actions != 3 {
		t.Errorf("schedule ls: %+v, %v", list, err)
	}
	t.Logf("schedule ls:\n%s", e.mustCLI("schedule", "ls"))

	e.mustCLI("schedule", "pause", "nightly", "--note", "moving racks")
	if s := e.show("nightly"); !s.Paused || s.Note != "moving racks" || len(s.Next) != 0 && nextRun(s.ScheduleState) != "none (paused)" {
		t.Errorf("after pause: paused %v note %q", s.Paused, s.Note)
	}
	e.mustCLI("schedule", "unpause", "nightly")
	if s := e.show("nightly"); s.Paused {
		t.Error("still paused after unpause")
	}
	e.mustCLI("schedule", "delete", "nightly")
	if _, errOut, code := e.cli("schedule", "show", "nightly"); code == 0 || !strings.Contains(errOut, "no such schedule") {
		t.Errorf("show after delete: exit %d, %q", code, errOut)
	}
}

// A webhook that never answers 2xx costs the run nothing: the run
// completes with its bundle and verdict, and schedule show says the
// notification failed after its retries.
func TestScheduleWebhookDown(t *testing.T) {
	e := newNightlyEnv(t)
	down := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		http.Error(rw, "down for maintenance", http.StatusServiceUnavailable)
	}))
	defer down.Close()
	e.mustCLI("schedule", "create", "hookdown", "-f", e.spec, "--every", "24h", "--notify", down.URL)
	e.mustCLI("schedule", "trigger", "hookdown")
	r := e.waitNotified("hookdown", 1)[0]
	if n := r.Notification; n.OK || n.Attempts != 4 || !strings.Contains(n.Error, "503") || r.BundleID == "" {
		t.Fatalf("run %+v notification %+v; want a bundle and a failure after 4 attempts naming the 503", r.Run, n)
	}
	cl, err := temporalclient.Dial(context.Background(), e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.GetWorkflow(context.Background(), r.WorkflowID, "").Get(context.Background(), nil); err != nil {
		t.Errorf("the run failed with its webhook: %v", err)
	}
	if out := e.mustCLI("schedule", "show", "hookdown"); !strings.Contains(out, "FAILED after 4 attempts") {
		t.Errorf("schedule show does not show the failed notification:\n%s", out)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// With no worker across a scheduled time, the run Temporal starts waits
// and completes when a worker returns, with the verdict of an undisturbed
// run; a trigger while it waits is skipped (overlap skip); a backfill of
// three past times gives three runs.
func TestScheduleCatchupOverlapBackfill(t *testing.T) {
	e := newNightlyEnv(t)
	e.mustCLI("schedule", "create", "often", "-f", e.spec, "--every", "10s", "--catchup-window", "1h")
	first := e.waitRuns("often", 1)[0]
	e.mustCLI("schedule", "pause", "often")
	e.stopWorkers()
	settled := len(e.waitRuns("often", 1))
	before := e.show("often")
	e.mustCLI("schedule", "unpause", "often")

	// A run due while no worker runs is started by Temporal and waits.
	deadline := time.Now().Add(time.Minute)
	var waiting scheduleView
	for {
		waiting = e.show("often")
		if waiting.Actions > before.Actions && len(waiting.Running) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no run started within a minute of unpausing: %+v", waiting.ScheduleState)
		}
		time.Sleep(500 * time.Millisecond)
	}
	e.mustCLI("schedule", "trigger", "often")
	e.mustCLI("schedule", "pause", "often")
	if s := e.show("often"); s.SkippedOverlap <= before.SkippedOverlap || s.Actions != waiting.Actions || len(s.Running) != 1 {
		t.Errorf("trigger while a run waits: %d skipped (was %d), %d started (was %d); want it skipped",
			s.SkippedOverlap, before.SkippedOverlap, s.Actions, waiting.Actions)
	}
	if out := e.mustCLI("schedule", "show", "often"); !strings.Contains(out, "running   "+waiting.Running[0]) {
		t.Errorf("schedule show does not list the waiting run %s:\n%s", waiting.Running[0], out)
	}
	if n := len(e.waitRuns("often", 1)); n != settled {
		t.Fatalf("a run finished with no worker: %d runs, was %d", n, settled)
	}

	e.startWorkers()
	caught := e.waitRuns("often", settled+1)[settled]
	if caught.WorkflowID != waiting.Running[0] {
		t.Errorf("the run that finished is %s, the one that waited %s", caught.WorkflowID, waiting.Running[0])
	}
	if v := e.verdict(caught); !onlyOutcome(v, compare.Identical) || caught.BundleID != first.BundleID {
		t.Errorf("caught-up run: bundle %s verdict %+v; want %s, every row identical as an undisturbed run", caught.BundleID, v.Counts, first.BundleID)
	}

	// Three past times, an hour back, 10 s apart.
	at := time.Now().UTC().Truncate(10 * time.Second).Add(-time.Hour)
	from, to := at.Add(-35*time.Second).Format(time.RFC3339), at.Add(-5*time.Second).Format(time.RFC3339)
	runs := len(e.waitRuns("often", 1))
	// A backfill over the limit starts nothing and says how many it would.
	started := e.show("often").Actions
	out, stderr, code := e.cli("schedule", "backfill", "often", "--from", "1970-01-01T00:00:00Z", "--to", "2026-12-01T00:00:00Z")
	oneErrorLine(t, out, stderr, code, "schedule often: a backfill from 1970-01-01T00:00:00Z to 2026-12-01T00:00:00Z: about ", "runs is over the limit of 500 runs", "limits.backfill_runs")
	out, stderr, code = e.cliEnv([]string{"FLOORBENCH_LIMIT_BACKFILL_RUNS=2"}, "schedule", "backfill", "often", "--from", from, "--to", to)
	oneErrorLine(t, out, stderr, code, ": 3 runs is over the limit of 2 runs", "FLOORBENCH_LIMIT_BACKFILL_RUNS")
	if s := e.show("often"); s.Actions != started {
		t.Errorf("refused backfills started %d runs", s.Actions-started)
	}
	if out := e.mustCLI("schedule", "backfill", "often", "--from", from, "--to", to); !strings.Contains(out, "(3 run(s))") {
		t.Errorf("backfill says %q; want it to count 3 runs", out)
	}
	all := e.waitRuns("often", runs+3)
	var backfilled []nightly.RunView
	for _, r := range all {
		if r.Scheduled >= from && r.Scheduled <= to {
			backfilled = append(backfilled, r)
		}
	}
	if len(backfilled) != 3 {
		t.Fatalf("backfill from %s to %s gave runs %+v; want three", from, to, backfilled)
	}
	// Each is judged against the run scheduled before it, not the latest.
	if backfilled[0].Baseline != "" || backfilled[1].Baseline != backfilled[0].BundleID {
		t.Errorf("backfilled runs' baselines %q, %q; want none, then the first's bundle %s",
			backfilled[0].Baseline, backfilled[1].Baseline, backfilled[0].BundleID)
	}
}

// Bad input is one clear line and changes nothing: no schedule is created
// and no spec is stored.
func TestScheduleBadInput(t *testing.T) {
	e := newNightlyEnv(t)
	e.stopWorkers()
	bad := writeFile(t, e.dir, "bad.yaml", "name: bad\ncorpora: []\nsystems: [{name: x, builtin: nosuch}]\n")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"bad cron", []string{"schedule", "create", "n", "-f", e.spec, "--cron", "61 * * * *"}, "schedule n:"},
		{"no time", []string{"schedule", "create", "n", "-f", e.spec}, "--cron EXPR or --every"},
		{"bad name", []string{"schedule", "create", "N/1", "-f", e.spec, "--every", "1h"}, "schedule name"},
		{"missing baseline", []string{"schedule", "create", "n", "-f", e.spec, "--every", "1h", "--baseline", "0123456789abcdef01234567"}, "--baseline"},
		{"spec that does not validate", []string{"schedule", "create", "n", "-f", bad, "--every", "1h"}, "bad.yaml"},
		{"bad webhook", []string{"schedule", "create", "n", "-f", e.spec, "--every", "1h", "--notify", "ftp://x"}, "--notify"},
		{"unknown schedule (show)", []string{"schedule", "show", "nosuch"}, "schedule nosuch: no such schedule"},
		{"unknown schedule (trigger)", []string{"schedule", "trigger", "nosuch"}, "no such schedule"},
		{"unknown schedule (backfill)", []string{"schedule", "backfill", "nosuch", "--from", "2026-01-01T00:00:00Z", "--to", "2026-01-02T00:00:00Z"}, "no such schedule"},
		{"unreachable Temporal", []string{"schedule", "create", "n", "-f", e.spec, "--every", "1h", "--temporal-address", "127.0.0.1:1"}, "cannot reach Temporal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := e.cli(c.args...)
			if code == 0 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stderr %q; want one line with %q", code, errOut, c.want)
			}
		})
	}
	var list []temporalclient.ScheduleState
	if err := json.Unmarshal([]byte(e.mustCLI("schedule", "ls", "-o", "json")), &list); err != nil || len(list) != 0 {
		t.Errorf("schedules after bad input: %+v, %v", list, err)
	}
	if keys, err := e.store.List(context.Background(), "specs/"); err != nil || len(keys) != 0 {
		t.Errorf("specs stored after bad input: %v, %v", keys, err)
	}
}
