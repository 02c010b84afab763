package workflows

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/sweep"
)

// newSweepEnv is a test environment with the sweep's child workflows and
// the activities (to be mocked) registered.
func newSweepEnv() (*testsuite.TestWorkflowEnvironment, *activities.Activities) {
	return newSweepEnvLimited(limits.Default())
}

// newSweepEnvLimited is newSweepEnv with activities under the limits l
// (the spec check runs for real: it is a local activity).
func newSweepEnvLimited(l limits.Limits) (*testsuite.TestWorkflowEnvironment, *activities.Activities) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	// Not the environment's 3 s of wall time for a step: the race
	// detector on a loaded machine outlasts it.
	env.SetTestTimeout(10 * time.Minute)
	env.RegisterWorkflow(CorpusWorkflow)
	env.RegisterWorkflow(EvaluationWorkflow)
	a := &activities.Activities{Limits: l}
	env.RegisterActivity(a)
	return env, a
}

// stored answers PlanStored as the store would: each corpus's
// conversations by its prefix, which evaluations started by reference
// read (childrenByReference).
func stored(env *testsuite.TestWorkflowEnvironment, a *activities.Activities, conversations map[string][]string) {
	env.OnActivity(a.PlanStored, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.PlanStoredInput) (activities.CorpusPlan, error) {
		convs, ok := conversations[in.Prefix]
		if !ok {
			return activities.CorpusPlan{}, fmt.Errorf("no corpus under %s", in.Prefix)
		}
		return activities.CorpusPlan{Name: in.Name, Prefix: in.Prefix, Conversations: convs}, nil
	})
}

func testInput(systems, conversations int) sweep.Input {
	s := spec.Sweep{Name: "unit", Corpora: []spec.Corpus{{Name: "c", Generate: &spec.Generate{Preset: "tiny", Seed: 1}}}}
	in := sweep.Input{Corpora: []sweep.CorpusSource{{Name: "c", Generate: &spec.Generate{Preset: "tiny", Seed: 1}}}, CodeVersion: "test"}
	for i := range systems {
		name := fmt.Sprintf("sys%d", i)
		s.Systems = append(s.Systems, spec.System{Name: name, Builtin: "rms"})
		in.Systems = append(in.Systems, sweep.SystemRef{Name: name, Hash: "h" + name, NeedsModel: i == 1})
	}
	s.Concurrency = 2
	s.Normalise()
	in.Spec, in.SpecHash = s, "spec-hash"
	return in
}

// The sweep's plan with the activities replaced: every conversation
// generated, inference for every system and conversation, one aggregation
// over every evaluation, and the progress query ending at "done".
func TestSweepWorkflowPlan(t *testing.T) {
	env, a := newSweepEnv()
	in := testInput(3, 5)
	convs := []string{"c1", "c2", "c3", "c4", "c5"}
	stored(env, a, map[string][]string{"corpora/x": convs})
	env.OnActivity(a.PlanGenerated, mock.Anything, mock.Anything).Return(activities.CorpusPlan{
		Name: "c", Prefix: "corpora/x", Hash: "x", Preset: "tiny", Seed: 1, Conversations: convs, Kind: "mptb"}, nil)
	env.OnActivity(a.Audit, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.AuditInput) (string, error) {
		return activities.AuditKey(in), nil
	}).Once()
	var mu sync.Mutex
	generated := 0
	env.OnActivity(a.GenerateConversation, mock.Anything, mock.Anything).Return(func(context.Context, activities.GenerateInput) error {
		mu.Lock()
		generated++
		mu.Unlock()
		return nil
	})
	env.OnActivity(a.FinalizeCorpus, mock.Anything, mock.Anything).Return(nil)
	env.OnActivity(a.AcquireGPU, mock.Anything, mock.Anything).Return(nil).Once()
	env.OnActivity(a.ReleaseGPU, mock.Anything, mock.Anything).Return(nil).Once()
	inferred := map[string]int{}
	byValue := 0 // activity inputs that carry the corpus's whole list
	env.OnActivity(a.Infer, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.InferInput) error {
		mu.Lock()
		inferred[in.System.Name] += len(in.Conversations)
		if in.Corpus.Conversations != nil {
			byValue++
		}
		mu.Unlock()
		return nil
	})
	env.OnActivity(a.Evaluate, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.EvaluateInput) (string, error) {
		return "evaluations/" + in.System.Name, nil
	})
	var aggregated activities.AggregateInput
	env.OnActivity(a.Aggregate, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.AggregateInput) (string, error) {
		aggregated = in
		return "bundle-1", nil
	})
	env.ExecuteWorkflow(SweepWorkflow, in)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res sweep.Result
	if err := env.GetWorkflowResult(&res); err != nil || res.BundleID != "bundle-1" {
		t.Fatalf("result %+v %v", res, err)
	}
	if generated != 5 || len(inferred) != 3 || inferred["sys0"] != 5 || inferred["sys2"] != 5 {
		t.Errorf("generated %d, inferred %v", generated, inferred)
	}
	if byValue > 0 {
		t.Errorf("%d inference inputs carry the corpus's conversation list: inputs and histories grow with the corpus", byValue)
	}
	env.AssertExpectations(t)
	if len(aggregated.Evaluations) != 3 || aggregated.Meta.SpecHash != "spec-hash" || len(aggregated.Meta.Inputs) != 4 {
		t.Errorf("aggregation input %+v", aggregated)
	}
	if len(aggregated.Audits) != 1 || aggregated.Audits[0].Corpus != "c" || !strings.HasPrefix(aggregated.Audits[0].Key, "audits/x/") {
		t.Errorf("the generated corpus's audit does not reach the bundle: %+v", aggregated.Audits)
	}
	v, err := env.QueryWorkflow(ProgressQuery)
	if err != nil {
		t.Fatal(err)
	}
	var p Progress
	if err := v.Get(&p); err != nil || p.Phase != "done" || p.SystemsScored != 3 || p.BundleID != "bundle-1" ||
		p.ConversationsGenerated != 5 || p.ConversationsTotal != 5 || p.TracksInferred != 15 || p.TracksTotal != 15 || len(p.Running) != 0 {
		t.Errorf("progress %+v %v", p, err)
	}
}

// ONNX systems infer on the GPU queue, the others on the CPU queue.
func TestQueueForSystems(t *testing.T) {
	q := spec.Queues{CPU: "c", GPU: "g", Synth: "s"}
	if queueFor(sweep.SystemRef{NeedsModel: true}, q) != "g" || queueFor(sweep.SystemRef{}, q) != "c" {
		t.Error("ONNX systems go to the GPU queue, acoustic ones to the CPU queue")
	}
}

// A sweep with an ONNX system scales the GPU workers up before inference
// and back down afterwards, also when the sweep fails.
func TestGPUCapacityIsReleasedWhenTheSweepFails(t *testing.T) {
	env, a := newSweepEnv()
	in := testInput(2, 3) // sys1 needs the GPU
	stored(env, a, map[string][]string{"corpora/x": {"c1", "c2"}})
	env.OnActivity(a.PlanGenerated, mock.Anything, mock.Anything).Return(activities.CorpusPlan{
		Name: "c", Prefix: "corpora/x", Hash: "x", Preset: "tiny", Seed: 1, Conversations: []string{"c1", "c2"}, Ready: true}, nil)
	var acquired, released []activities.CapacityInput
	env.OnActivity(a.AcquireGPU, mock.Anything, mock.Anything).Return(func(_ context.Context, c activities.CapacityInput) error {
		acquired = append(acquired, c)
		return nil
	})
	env.OnActivity(a.ReleaseGPU, mock.Anything, mock.Anything).Return(func(_ context.Context, c activities.CapacityInput) error {
		released = append(released, c)
		return nil
	})
	env.OnActivity(a.Infer, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.InferInput) error {
		if in.System.NeedsModel {
			return temporal.NewNonRetryableApplicationError("model missing", sweep.BadInput, nil)
		}
		return nil
	})
	env.OnActivity(a.Evaluate, mock.Anything, mock.Anything).Return("evaluations/x", nil)
	env.ExecuteWorkflow(SweepWorkflow, in)
	if env.GetWorkflowError() == nil {
		t.Fatal("the sweep must fail when inference fails")
	}
	if len(acquired) != 1 || acquired[0].Replicas != 1 || len(released) != 1 || released[0].Holder != acquired[0].Holder {
		t.Errorf("acquired %+v, released %+v", acquired, released)
	}
}

// A corpus without dev data is evaluated after the generated corpus, with
// each system's thresholds read from that system's stored evaluation there
// (the key the source's evaluation returned, carried by the signal); a
// spec's transfer_from names another source.
func TestCorporaWithoutDevTransferThresholds(t *testing.T) {
	for _, c := range []struct{ from, want string }{{"", "sim"}, {"real-dev", "real-dev"}} {
		env, a := newSweepEnv()
		in := testInput(2, 0)
		in.Systems[1].NeedsModel = false
		in.Spec.Corpora = []spec.Corpus{in.Spec.Corpora[0], {Name: "real-dev", Path: "/d"}, {Name: "real", Path: "/r", TransferFrom: c.from}}
		in.Spec.Corpora[0].Name = "sim"
		in.Corpora = []sweep.CorpusSource{{Name: "sim", Generate: in.Corpora[0].Generate}, {Name: "real-dev", Dir: "/d"}, {Name: "real", Dir: "/r"}}
		env.OnActivity(a.PlanGenerated, mock.Anything, mock.Anything).Return(activities.CorpusPlan{
			Name: "sim", Prefix: "corpora/s", Hash: "s", Conversations: []string{"s1"}, Ready: true, Kind: "mptb"}, nil)
		stored(env, a, map[string][]string{"corpora/s": {"s1"}, "corpora/real-dev": {"r1"}, "corpora/real": {"r1"}})
		env.OnActivity(a.IngestLocal, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.IngestInput) (activities.CorpusPlan, error) {
			return activities.CorpusPlan{Name: in.Name, Prefix: "corpora/" + in.Name, Hash: in.Name, Conversations: []string{"r1"}, Ready: true,
				Kind: "ami", NoDev: in.Name == "real"}, nil
		})
		// The source's inference is slow: the corpus without dev must wait.
		source := mock.MatchedBy(func(in activities.InferInput) bool { return in.Corpus.Name == c.want })
		other := mock.MatchedBy(func(in activities.InferInput) bool { return in.Corpus.Name != c.want })
		env.OnActivity(a.Infer, mock.Anything, source).After(time.Minute).Return(nil)
		env.OnActivity(a.Infer, mock.Anything, other).Return(nil)
		var mu sync.Mutex
		var order []string
		transfers := map[string]*activities.Transfer{}
		stored := map[string]string{} // system/corpus -> evaluation key
		env.OnActivity(a.Evaluate, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.EvaluateInput) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			name := in.System.Name + "/" + in.Corpus.Name
			order = append(order, name)
			transfers[name] = in.Transfer
			// A key the sweep cannot compute: the dependent evaluation
			// must get it from the signal.
			stored[name] = "evaluations/stored/" + name
			return stored[name], nil
		})
		// Only the generated corpus is audited.
		env.OnActivity(a.Audit, mock.Anything, mock.MatchedBy(func(in activities.AuditInput) bool { return in.Corpus.Name == "sim" })).
			Return("audits/s/p.json", nil).Once()
		env.OnActivity(a.Aggregate, mock.Anything, mock.Anything).Return("bundle-1", nil)
		env.ExecuteWorkflow(SweepWorkflow, in)
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		if len(order) != 6 {
			t.Fatalf("evaluations %v", order)
		}
		for _, sys := range []string{"sys0", "sys1"} {
			if slices.Index(order, sys+"/real") < slices.Index(order, sys+"/"+c.want) {
				t.Errorf("evaluation order %v: %s/real before its source", order, sys)
			}
			got := transfers[sys+"/real"]
			want := activities.Transfer{Corpus: c.want, Evaluation: stored[sys+"/"+c.want]}
			if got == nil || *got != want {
				t.Errorf("transfer_from %q: %s on real transferred %+v, want %+v", c.from, sys, got, want)
			}
			if transfers[sys+"/sim"] != nil || transfers[sys+"/real-dev"] != nil {
				t.Errorf("%s: a corpus with dev data must not transfer", sys)
			}
		}
	}
}

// The worker checks the spec again under its own limits: a sweep over them
// fails at once with the limit named, before any corpus is planned.
func TestSweepOverTheWorkersLimitsFailsFirst(t *testing.T) {
	t.Parallel()
	l := limits.Default()
	l.Resamples = 10
	env, a := newSweepEnvLimited(l)
	planned := false
	env.OnActivity(a.PlanGenerated, mock.Anything, mock.Anything).Return(func(context.Context, activities.PlanGeneratedInput) (activities.CorpusPlan, error) {
		planned = true
		return activities.CorpusPlan{}, nil
	})
	env.ExecuteWorkflow(SweepWorkflow, testInput(1, 1))
	err := env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "bootstrap.resamples: 10000 is over the limit of 10") || planned {
		t.Fatalf("err %v, planned %v", err, planned)
	}
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !app.NonRetryable() {
		t.Errorf("want a non-retryable failure, got %v", err)
	}
}

// An evaluation waiting for its threshold source evaluates with the key
// the transfer-ready signal carries; a signal without one (sent by sweeps
// before transferByKey) leaves the key its input names.
func TestEvaluationTransfersFromTheSignalledKey(t *testing.T) {
	for _, c := range []struct {
		signal any
		want   string
	}{{"evaluations/stored", "evaluations/stored"}, {nil, "evaluations/planned"}} {
		env, a := newSweepEnv()
		env.OnActivity(a.Infer, mock.Anything, mock.Anything).Return(nil)
		var got *activities.Transfer
		env.OnActivity(a.Evaluate, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.EvaluateInput) (string, error) {
			got = in.Transfer
			return "evaluations/x", nil
		})
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(transferReady, c.signal) }, time.Minute)
		env.ExecuteWorkflow(EvaluationWorkflow, EvaluationInput{
			System: sweep.SystemRef{Name: "s"}, Corpus: activities.CorpusPlan{Name: "real", Conversations: []string{"r1"}},
			Concurrency: 1, Batch: 1, Transfer: &activities.Transfer{Corpus: "sim", Evaluation: "evaluations/planned"}, AwaitTransfer: true})
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		if got == nil || *got != (activities.Transfer{Corpus: "sim", Evaluation: c.want}) {
			t.Errorf("signal %v: evaluated with transfer %+v, want the key %s", c.signal, got, c.want)
		}
	}
}

// A scheduled run that fails records its cause once (sweep.FailureMessage):
// a spec that does not resolve by its message alone, a step that timed
// out by the activity it happened in, as status shows them.
func TestNightlyRecordsTheCauseOfItsFailure(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"bad input", temporal.NewNonRetryableApplicationError("specs/n.yaml: systems[0] (x): unknown family", sweep.BadInput, nil),
			"specs/n.yaml: systems[0] (x): unknown family"},
		{"timeout", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil), "activity ResolveScheduled: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, a := newSweepEnv()
			env.RegisterWorkflow(NightlyWorkflow)
			env.OnActivity(a.ResolveScheduled, mock.Anything, mock.Anything).Return(sweep.Input{}, c.err)
			var recorded []string
			env.OnActivity(a.RecordFailedRun, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.FailedRunInput) error {
				recorded = append(recorded, in.Error)
				return nil
			})
			env.ExecuteWorkflow(NightlyWorkflow, NightlyInput{Schedule: "n", SpecKey: "specs/n.yaml"})
			if env.GetWorkflowError() == nil {
				t.Fatal("the run succeeded")
			}
			if len(recorded) != 1 || !strings.HasPrefix(recorded[0], c.want) || strings.Count(recorded[0], "ResolveScheduled") > 1 {
				t.Errorf("recorded %q, want one record starting %q", recorded, c.want)
			}
			if got := sweep.FailureMessage(env.GetWorkflowError()); !strings.HasPrefix(got, c.want) {
				t.Errorf("status shows %q, want %q", got, c.want)
			}
		})
	}
}
