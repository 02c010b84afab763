package inprocess_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/inprocess"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/sweep/sweepfixture"
	"github.com/floorbench/floorbench/workflows"
)

// started is one activity as an executor started it: its name and its
// input as JSON.
type started struct{ name, input string }

// activityLog records started activities from several goroutines.
type activityLog struct {
	mu  sync.Mutex
	log []started
}

func (l *activityLog) add(t *testing.T, name string, input any) {
	data, err := json.Marshal(input)
	if err != nil {
		t.Error(err)
	}
	l.mu.Lock()
	l.log = append(l.log, started{name, string(data)})
	l.mu.Unlock()
}

// inputs are the recorded inputs of one activity, sorted.
func (l *activityLog) inputs(name string) []string {
	var out []string
	for _, s := range l.log {
		if s.name == name {
			out = append(out, s.input)
		}
	}
	slices.Sort(out)
	return out
}

// activityInputs are the input types of the activities a sweep runs, by
// name, to decode what the SDK test environment reports.
var activityInputs = map[string]func() any{
	"PlanStored": func() any { return &activities.PlanStoredInput{} }, "IngestLocal": func() any { return &activities.IngestInput{} },
	"PlanGenerated": func() any { return &activities.PlanGeneratedInput{} }, "GenerateConversation": func() any { return &activities.GenerateInput{} },
	"FinalizeCorpus": func() any { return &activities.FinalizeInput{} }, "Infer": func() any { return &activities.InferInput{} },
	"RunModel": func() any { return &activities.ModelInput{} }, "MapFloor": func() any { return &activities.FloorInput{} },
	"Evaluate": func() any { return &activities.EvaluateInput{} }, "Audit": func() any { return &activities.AuditInput{} },
	"Aggregate": func() any { return &activities.AggregateInput{} },
}

// The in-process runner and the sweep workflow execute the same plan: over
// the fixture corpora (one without dev data), each from an empty store,
// they start the same activities with the same inputs, byte for byte (the
// workflow's evaluations also read their corpus's conversation list,
// PlanStored), evaluate a corpus without dev data only after its source,
// with the key the source's evaluation returned, and make the same bundle.
func TestInProcessAndWorkflowExecuteTheSamePlan(t *testing.T) {
	ctx := context.Background()
	specYAML, _ := sweepfixture.Spec(t)
	// rms-endpointer shares rms's model stage.
	specYAML = strings.Replace(specYAML, "systems:\n", "systems:\n  - {name: rms-endpointer, builtin: rms-endpointer}\n", 1)
	in := sweepfixture.Resolved(t, specYAML)

	var local activityLog
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	localID, err := inprocess.RunObserved(ctx, in, &activities.Activities{Store: st, Scratch: t.TempDir()}, activities.Admission{},
		func(name string, input any) { local.add(t, name, input) })
	if err != nil {
		t.Fatal(err)
	}

	var viaWorkflow activityLog
	st, err = store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(10 * time.Minute)
	env.RegisterWorkflow(workflows.CorpusWorkflow)
	env.RegisterWorkflow(workflows.EvaluationWorkflow)
	env.RegisterWorkflow(workflows.ModelWorkflow)
	env.RegisterActivity(&activities.Activities{Store: st, Scratch: t.TempDir()})
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
		name := info.ActivityType.Name
		input := activityInputs[name]()
		if err := args.Get(input); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		viaWorkflow.add(t, name, input)
	})
	env.ExecuteWorkflow(workflows.SweepWorkflow, in)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res sweep.Result
	if err := env.GetWorkflowResult(&res); err != nil || res.BundleID != localID {
		t.Fatalf("the workflow made bundle %s (%v), the in-process run %s", res.BundleID, err, localID)
	}

	for name := range activityInputs {
		if name == "PlanStored" {
			continue
		}
		a, b := local.inputs(name), viaWorkflow.inputs(name)
		if len(a) != len(b) {
			t.Errorf("%s: %d inputs in process, %d through the workflow", name, len(a), len(b))
			continue
		}
		for i := range a {
			if a[i] != b[i] {
				t.Errorf("%s: in process %s,\nthrough the workflow %s", name, a[i], b[i])
				break
			}
		}
	}
	if n := len(local.inputs("Evaluate")); n != 6 || len(local.inputs("Audit")) != 2 || len(local.inputs("Aggregate")) != 1 {
		t.Errorf("in process: %d evaluations, audits %q", n, local.inputs("Audit"))
	}
	checkEachModelRanOnce(t, in, local.inputs("RunModel"), local.inputs("MapFloor"))
	if p := local.inputs("PlanStored"); len(p) != 0 {
		t.Errorf("the in-process runner read stored plans %q", p)
	}
	for _, l := range []*activityLog{&local, &viaWorkflow} {
		checkSourcesFirst(t, l.log)
	}
}

// checkEachModelRanOnce checks that the model stage of rms and
// rms-endpointer ran once on each conversation of each corpus, for both
// systems to map, and every system mapped every conversation.
func checkEachModelRanOnce(t *testing.T, in sweep.Input, runs, maps []string) {
	t.Helper()
	ran := map[string]int{}    // model hash/corpus -> conversations
	mapped := map[string]int{} // system/corpus -> conversations
	for _, s := range runs {
		var m activities.ModelInput
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		ran[m.System.ModelHash+"/"+m.Corpus.Name] += len(m.Conversations)
	}
	for _, s := range maps {
		var f activities.FloorInput
		if err := json.Unmarshal([]byte(s), &f); err != nil {
			t.Fatal(err)
		}
		mapped[f.System.Name+"/"+f.Corpus.Name] += len(f.Conversations)
	}
	if in.Systems[0].ModelHash != in.Systems[1].ModelHash || in.Systems[0].ModelHash == in.Systems[2].ModelHash {
		t.Fatalf("model hashes %s, %s, %s: rms-endpointer and rms share theirs, webrtcvad has its own", in.Systems[0].ModelHash, in.Systems[1].ModelHash, in.Systems[2].ModelHash)
	}
	if len(ran) != 4 || len(mapped) != 6 {
		t.Errorf("model stages ran %v, systems mapped %v: want 2 models on 2 corpora, 3 systems on 2 corpora", ran, mapped)
	}
	for key, n := range mapped {
		system, corpus, _ := strings.Cut(key, "/")
		i := slices.IndexFunc(in.Systems, func(s sweep.SystemRef) bool { return s.Name == system })
		if ran[in.Systems[i].ModelHash+"/"+corpus] != n {
			t.Errorf("%s mapped %d conversations, its model ran on %d", key, n, ran[in.Systems[i].ModelHash+"/"+corpus])
		}
	}
}

// checkSourcesFirst checks that every evaluation with transferred
// thresholds started after its source's evaluation, and names the key
// that one is stored under.
func checkSourcesFirst(t *testing.T, log []started) {
	t.Helper()
	var evals []activities.EvaluateInput
	transferred := 0
	for _, s := range log {
		if s.name != "Evaluate" {
			continue
		}
		var e activities.EvaluateInput
		if err := json.Unmarshal([]byte(s.input), &e); err != nil {
			t.Fatal(err)
		}
		if e.Transfer != nil {
			transferred++
			i := slices.IndexFunc(evals, func(src activities.EvaluateInput) bool {
				return src.System.Name == e.System.Name && src.Corpus.Name == e.Transfer.Corpus
			})
			if i < 0 || activities.EvaluationKey(evals[i]) != e.Transfer.Evaluation {
				t.Errorf("%s on %s evaluated before its source on %s, or not from its key (%s)", e.System.Name, e.Corpus.Name, e.Transfer.Corpus, e.Transfer.Evaluation)
			}
		}
		evals = append(evals, e)
	}
	if transferred != 3 {
		t.Errorf("%d evaluations transferred thresholds, want 3", transferred)
	}
}
