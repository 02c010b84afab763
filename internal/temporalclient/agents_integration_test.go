package temporalclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/agent/refagent"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/devserver"
	"github.com/floorbench/floorbench/internal/inprocess"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/temporalclient"
	"github.com/floorbench/floorbench/internal/testenv"
	"github.com/floorbench/floorbench/workflows"
)

// agentServer is the reference agent served on 127.0.0.1 at a fixed
// address, which can be killed (every session dropped) and started again,
// and which counts the sessions it opened (from its log).
type agentServer struct {
	t        *testing.T
	addr     string
	handler  *proto.Handler
	sessions atomic.Int64
	started  chan struct{} // closed at the first session
	once     sync.Once
	stop     func()
}

func serveAgent(t *testing.T, policy string) *agentServer {
	t.Helper()
	tts, err := refagent.EspeakTTS()
	if err != nil {
		if testenv.Required() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ref, err := refagent.New(context.Background(), refagent.DefaultConfig(policy), tts)
	if err != nil {
		t.Fatal(err)
	}
	s := &agentServer{t: t, addr: testenv.Addr(testenv.FreePort(t)), started: make(chan struct{})}
	s.handler, err = ref.Handler("duplex", proto.ServerOptions{Rate: agentRate, Log: log.New(sessionCounter{s}, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	s.start()
	t.Cleanup(func() { s.stop() })
	return s
}

// sessionCounter counts the sessions a handler's log says it opened.
type sessionCounter struct{ s *agentServer }

func (c sessionCounter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "session opened") {
		c.s.sessions.Add(1)
		c.s.once.Do(func() { close(c.s.started) })
	}
	return len(p), nil
}

// start serves on the server's address until stop.
func (s *agentServer) start() {
	s.t.Helper()
	l, err := net.Listen("tcp", s.addr)
	if err != nil {
		s.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = proto.Serve(ctx, l, s.handler)
	}()
	s.stop = func() {
		cancel()
		<-done
	}
}

func (s *agentServer) url() string { return "ws://" + s.addr + "/" }

// silentEndpoint accepts connections and never answers.
func silentEndpoint(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "ws://" + l.Addr().String() + "/"
}

// agentSweeps is a real Temporal dev server with in-process workers on a
// local store.
type agentSweeps struct {
	t  *testing.T
	cl client.Client
	st *store.Local
	// root is the local store's folder.
	root string
	// recorded: the first sweep's histories are written (with
	// -record-histories) for the replay test.
	recorded bool
}

func newAgentSweeps(t *testing.T) *agentSweeps {
	t.Helper()
	if testing.Short() {
		t.Skip("sweeps through a Temporal dev server playing real time: skipped with -short")
	}
	srv, err := devserver.New(testenv.Tool(t, "temporal", "temporal"), t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	root := t.TempDir()
	st, err := store.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := temporalclient.Dial(context.Background(), config.Config{TemporalAddress: srv.Address, Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	q := spec.Queues{CPU: spec.QueueCPU, GPU: spec.QueueGPU, Synth: spec.QueueSynth}
	ws, err := temporalclient.StartWorkers(cl, &activities.Activities{Store: st, Runtime: detect.RuntimeFromEnv(), Scratch: t.TempDir()},
		[]string{q.CPU, q.Synth, q.GPU}, q.CPU, activities.DefaultAdmission())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Stop)
	return &agentSweeps{t: t, cl: cl, st: st, root: root}
}

// agentSpec is a sweep of one agent on tiny-agent, each scenario once.
func agentSpec(name, url string, concurrency int) string {
	return fmt.Sprintf(`name: agents
agents:
  - name: %s
    protocol: duplex
    endpoint: %s
    rate: %d
    concurrency: %d
    repeats: 1
    scenarios: {preset: tiny-agent, seed: 1}
bootstrap: {resamples: 200, seed: 1}
`, name, url, agentRate, concurrency)
}

// sweep submits a spec (after), waits for it and returns its bundle's
// results and what its agent's evaluation did.
func (h *agentSweeps) sweep(specYAML string, after func()) (*bundle.Results, workflows.AgentOutcome) {
	h.t.Helper()
	s, err := spec.Parse("agents.yaml", []byte(specYAML), limits.Default())
	if err != nil {
		h.t.Fatal(err)
	}
	in, err := sweep.Resolve(s, detect.RuntimeFromEnv())
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	run, err := temporalclient.Submit(ctx, h.cl, in)
	if err != nil {
		h.t.Fatal(err)
	}
	if after != nil {
		after()
	}
	st, err := temporalclient.Watch(ctx, h.cl, run.GetID(), 500*time.Millisecond, nil)
	if err != nil || st.State != "completed" {
		h.t.Fatalf("sweep %s: %v %+v", run.GetID(), err, st)
	}
	if len(st.Progress.Agents) != 1 || st.Progress.Agents[0].Done != st.Progress.Agents[0].Trials {
		h.t.Errorf("status of the finished sweep: agents %+v", st.Progress.Agents)
	}
	var out workflows.AgentOutcome
	child := run.GetID() + "/agent-" + s.Agents[0].Name
	if err := h.cl.GetWorkflow(ctx, child, "").Get(ctx, &out); err != nil {
		h.t.Fatal(err)
	}
	if *recordHistories != "" && !h.recorded {
		writeHistories(ctx, h.t, h.cl, []string{run.GetID(), child}, []string{"agent-sweep", "agent"})
		h.recorded = true
	}
	data, err := store.GetBytes(ctx, h.st, keys.Bundle(st.BundleID, "results.json"))
	if err != nil {
		h.t.Fatal(err)
	}
	var res bundle.Results
	if err := json.Unmarshal(data, &res); err != nil {
		h.t.Fatal(err)
	}
	if res.Agents == nil || len(res.Agents.Agents) != 1 {
		h.t.Fatalf("bundle %s has no agent results", st.BundleID)
	}
	report, err := store.GetBytes(ctx, h.st, keys.Bundle(st.BundleID, "report.md"))
	if err != nil || !strings.Contains(string(report), "## Agents") || !strings.Contains(string(report), "START BA [95% CI]") {
		h.t.Errorf("report.md without the agent table: %v", err)
	}
	return &res, out
}

// inProcess runs a spec with inprocess.Run on the same store
// and returns its bundle's results.
func (h *agentSweeps) inProcess(specYAML string) *bundle.Results {
	h.t.Helper()
	s, err := spec.Parse("agents.yaml", []byte(specYAML), limits.Default())
	if err != nil {
		h.t.Fatal(err)
	}
	in, err := sweep.Resolve(s, detect.RuntimeFromEnv())
	if err != nil {
		h.t.Fatal(err)
	}
	ctx := context.Background()
	id, err := inprocess.Run(ctx, in, &activities.Activities{Store: h.st, Scratch: h.t.TempDir()}, activities.Admission{})
	if err != nil {
		h.t.Fatal(err)
	}
	data, err := store.GetBytes(ctx, h.st, keys.Bundle(id, "results.json"))
	if err != nil {
		h.t.Fatal(err)
	}
	var res bundle.Results
	if err := json.Unmarshal(data, &res); err != nil {
		h.t.Fatal(err)
	}
	return &res
}

// decisions are a run's trials by scenario: outcome and whether it acted.
func decisions(r *bundle.Results) map[string]string {
	out := map[string]string{}
	for _, t := range r.Agents.Trials {
		out[t.ScenarioID] = fmt.Sprintf("%s acted=%v", t.Outcome, t.Acted)
	}
	return out
}

// A sweep with the reference never-yield agent over duplex: the bundle's
// agent table gives its known answer (STOP recall 0, FPR 0, action bias
// -1; every turn end entered); a second sweep of the same agent at another
// concurrency (not part of the sweep's identity) is the same run, and the
// same sweep run in process plays no trial again: both give the same agent
// results;
// an agent killed mid-trial and started again gives the undisturbed
// decisions; an endpoint that never answers gives a failed trial with its
// error for every scenario, and the sweep completes.
func TestAgentSweepsThroughTemporal(t *testing.T) {
	h := newAgentSweeps(t)
	ref := serveAgent(t, refagent.NeverYield)
	res, out := h.sweep(agentSpec("never-yield", ref.url(), agentConcurrency), nil)
	a := res.Agents.Agents[0]
	if a.Trials != 14 || a.Errors != 0 || out.Played != 14 || out.Failed != 0 {
		t.Fatalf("first sweep: %d trials, %d errors; outcome %+v", a.Trials, a.Errors, out)
	}
	if a.Stop.Recall != 0 || a.Stop.FPRate != 0 || a.Stop.ActionBias != -1 || a.Start.Recall != 1 {
		t.Errorf("never-yield: START recall %v, STOP recall %v FPR %v bias %v", a.Start.Recall, a.Stop.Recall, a.Stop.FPRate, a.Stop.ActionBias)
	}
	undisturbed := decisions(res)
	trials, err := h.st.List(context.Background(), keys.Trials)
	if err != nil || len(trials) != 3*14 {
		t.Fatalf("the store holds %d trial objects, want recording.json, input.wav and output.wav of 14 trials: %v", len(trials), err)
	}

	sessions := ref.sessions.Load()
	again, _ := h.sweep(agentSpec("never-yield", ref.url(), agentConcurrency+1), nil)
	if again.BundleID != res.BundleID || ref.sessions.Load() != sessions {
		t.Errorf("the sweep at another concurrency: bundle %s after %s, %d sessions after %d", again.BundleID, res.BundleID, ref.sessions.Load(), sessions)
	}
	first, _ := json.Marshal(res.Agents)
	second, _ := json.Marshal(again.Agents)
	if string(first) != string(second) {
		t.Errorf("the second sweep's agent results differ:\n%s\n%s", first, second)
	}
	if after, err := h.st.List(context.Background(), keys.Trials); err != nil || fmt.Sprint(after) != fmt.Sprint(trials) {
		t.Errorf("the second sweep changed the stored trials: %d objects, %v", len(after), err)
	}
	inProcess := h.inProcess(agentSpec("never-yield", ref.url(), agentConcurrency+2))
	if got, _ := json.Marshal(inProcess.Agents); string(got) != string(first) || ref.sessions.Load() != sessions {
		t.Errorf("the sweep run in process: %d sessions after %d, agent results\n%s\nwant\n%s", ref.sessions.Load(), sessions, got, first)
	}

	killed := serveAgent(t, refagent.NeverYield) // another endpoint: another identity, so its trials are played
	res, out = h.sweep(agentSpec("restarted", killed.url(), agentConcurrency), func() {
		select {
		case <-killed.started:
		case <-time.After(5 * time.Minute):
			t.Fatal("no session started")
		}
		killed.stop()
		killed.start()
	})
	if out.Played != 14 || out.Failed != 0 || killed.sessions.Load() <= 14 {
		t.Errorf("killed mid-trial: outcome %+v after %d sessions (want every trial played, some twice)", out, killed.sessions.Load())
	}
	if got := decisions(res); fmt.Sprint(got) != fmt.Sprint(undisturbed) {
		t.Errorf("killed mid-trial and restarted: decisions\n%v\nundisturbed\n%v", got, undisturbed)
	}

	res, out = h.sweep(agentSpec("silent", silentEndpoint(t), 8), nil)
	if a := res.Agents.Agents[0]; a.Errors != 14 || out.Failed != 14 {
		t.Fatalf("an endpoint that never answers: %d errors, outcome %+v", a.Errors, out)
	}
	for _, tr := range res.Agents.Trials {
		if tr.Outcome != agent.Failed || tr.Error == "" {
			t.Errorf("%s: outcome %s, error %q", tr.ScenarioID, tr.Outcome, tr.Error)
		}
	}
	if msg := res.Agents.Trials[0].Error; !strings.Contains(msg, "duplex agent at ws://127.0.0.1:") {
		t.Errorf("a failed trial's error does not name the endpoint: %q", msg)
	}
}
