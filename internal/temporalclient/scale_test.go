package temporalclient_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/proto"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/devserver"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/temporalclient"
	"github.com/floorbench/floorbench/internal/testenv"
	"github.com/floorbench/floorbench/workflows"
)

// simActivities stand in for floorbench's activities in the scale
// simulation: same names and types, no work. Only the orchestration runs:
// workflows, histories, payloads.
type simActivities struct{ conversations []string }

func (s *simActivities) PlanStored(_ context.Context, in activities.PlanStoredInput) (activities.CorpusPlan, error) {
	return activities.CorpusPlan{Name: in.Name, Prefix: in.Prefix, Hash: "sim", Kind: "mptb", Conversations: s.conversations, Ready: true}, nil
}
func (s *simActivities) Infer(context.Context, activities.InferInput) error { return nil }
func (s *simActivities) Evaluate(_ context.Context, in activities.EvaluateInput) (string, error) {
	return activities.EvaluationKey(in), nil
}
func (s *simActivities) Audit(_ context.Context, in activities.AuditInput) (string, error) {
	return activities.AuditKey(in), nil
}
func (s *simActivities) Aggregate(_ context.Context, in activities.AggregateInput) (string, error) {
	return bundle.ID(in.Meta)
}

// Temporal's warning limits (its defaults): a history of 10,240 events or
// 10 MB, and one payload of 256 KB.
const (
	warnEvents  = 10240
	warnHistory = 10 << 20
	warnPayload = 256 << 10
)

// TestScaleSimulation runs the sweep's real workflows on a real Temporal
// dev server with activities that do nothing, at the size given by
// FLOORBENCH_SCALE_SIM=CONVERSATIONSxSYSTEMS (e.g. 10000x100), and checks
// every workflow run's history against Temporal's warning limits. It is a
// measurement (docs/performance.md#lab-scale, "Past this machine"), not part of the suite.
func TestScaleSimulation(t *testing.T) {
	size := os.Getenv("FLOORBENCH_SCALE_SIM")
	if size == "" {
		t.Skip("set FLOORBENCH_SCALE_SIM=CONVERSATIONSxSYSTEMS, e.g. 10000x100")
	}
	var nConvs, nSystems int
	if _, err := fmt.Sscanf(size, "%dx%d", &nConvs, &nSystems); err != nil {
		t.Fatalf("FLOORBENCH_SCALE_SIM=%q: %v", size, err)
	}
	srv, err := devserver.New(testenv.Tool(t, "temporal", "temporal"), t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	cfg := config.Config{TemporalAddress: srv.Address, Namespace: "default"}
	cl, err := temporalclient.Dial(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	sim := &simActivities{}
	for i := range nConvs {
		sim.conversations = append(sim.conversations, fmt.Sprintf("conv-%05d", i))
	}
	s := &spec.Sweep{Name: "scale", Corpora: []spec.Corpus{{Name: "big", S3: "corpora/big"}}, Concurrency: 64}
	in := sweep.Input{Corpora: []sweep.CorpusSource{{Name: "big", Prefix: "corpora/big"}}, CodeVersion: "sim"}
	for i := range nSystems {
		name := fmt.Sprintf("sys%03d", i)
		s.Systems = append(s.Systems, spec.System{Name: name, Builtin: "rms"})
		in.Systems = append(in.Systems, sweep.SystemRef{Name: name, Hash: fmt.Sprintf("%064d", i)})
	}
	s.Normalise()
	hash, err := s.Hash()
	if err != nil {
		t.Fatal(err)
	}
	in.Spec, in.SpecHash = *s, hash
	var ws []worker.Worker
	for _, q := range []string{s.Queues.CPU, s.Queues.GPU} {
		w := worker.New(cl, q, worker.Options{MaxConcurrentActivityExecutionSize: 256})
		if q == s.Queues.CPU {
			workflows.Register(w)
		}
		w.RegisterActivity(sim)
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	defer func() {
		for _, w := range ws {
			w.Stop()
		}
	}()
	start := time.Now()
	run, err := temporalclient.Submit(ctx, cl, in)
	if err != nil {
		t.Fatal(err)
	}
	var res sweep.Result
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	wall := time.Since(start)

	type runStats struct {
		id            string
		events        int
		bytes, maxEvt int
	}
	var runs []runStats
	var token []byte
	for {
		page, err := cl.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default", NextPageToken: token, PageSize: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Executions {
			r := runStats{id: e.Execution.WorkflowId}
			it := cl.GetWorkflowHistory(ctx, e.Execution.WorkflowId, e.Execution.RunId, false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				ev, err := it.Next()
				if err != nil {
					t.Fatal(err)
				}
				n := proto.Size(ev)
				r.events++
				r.bytes += n
				r.maxEvt = max(r.maxEvt, n)
			}
			runs = append(runs, r)
		}
		if token = page.NextPageToken; len(token) == 0 {
			break
		}
	}
	slices.SortFunc(runs, func(a, b runStats) int { return b.bytes - a.bytes })
	var maxEvents, maxEvt int
	for _, r := range runs {
		maxEvents, maxEvt = max(maxEvents, r.events), max(maxEvt, r.maxEvt)
		if r.events > warnEvents || r.bytes > warnHistory || r.maxEvt > warnPayload {
			t.Errorf("%s: %d events, %d bytes, largest event %d bytes: over Temporal's warning limits", r.id, r.events, r.bytes, r.maxEvt)
		}
	}
	t.Logf("%d conversations × %d systems: bundle %s in %v; %d workflow runs; largest history %s %d events %.1f MB; most events in a run %d; largest event %.1f KB",
		nConvs, nSystems, res.BundleID, wall.Round(time.Second), len(runs), runs[0].id, runs[0].events, float64(runs[0].bytes)/(1<<20), maxEvents, float64(maxEvt)/1024)
}
