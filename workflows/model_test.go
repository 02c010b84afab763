package workflows

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/sweep"
)

// The plan runs each model once per corpus: systems with the same model
// hash share one model stage, whose evaluations map its outputs on the CPU
// queue; a system without a model stage infers its own tracks.
func TestPlanSharesModelStages(t *testing.T) {
	in, plans := planInput()
	plans = plans[:2]
	in.Corpora = in.Corpora[:2]
	in.Systems = []sweep.SystemRef{
		{Name: "a", Hash: "ha", ModelHash: "ma"},
		{Name: "b", Hash: "hb", ModelHash: "mb", NeedsModel: true},
		{Name: "a-ramp", Hash: "ha2", ModelHash: "ma"},
		{Name: "ext", Hash: "he"},
	}
	p := NewPlan(in, plans)
	var got []string
	for _, m := range p.Models {
		got = append(got, fmt.Sprintf("%s %s %s batch %d %v", m.Name, m.Input.System.ModelHash, m.Input.Queue, m.Input.Batch, m.Evaluations))
	}
	want := []string{
		"model-a-sim ma floorbench-cpu batch 3 [0 4]",
		"model-a-real-dev ma floorbench-cpu batch 1 [1 5]",
		"model-b-sim mb floorbench-gpu batch 3 [2]",
		"model-b-real-dev mb floorbench-gpu batch 1 [3]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("model stages\n got %q\nwant %q", got, want)
	}
	for i, e := range p.Evaluations {
		staged := e.Input.System.ModelHash != ""
		if e.Input.Staged != staged || (e.Model >= 0) != staged || (staged && !slices.Contains(p.Models[e.Model].Evaluations, i)) {
			t.Errorf("%s: staged %v, model stage %d", e.Name, e.Input.Staged, e.Model)
		}
	}
}

// stagedInput is testInput's sweep with model stages: sys0 and sys2 share
// one model, sys1 runs an ONNX model of its own, sys3 has no model stage.
func stagedInput() sweep.Input {
	in := testInput(4, 5)
	in.Systems[0].ModelHash, in.Systems[2].ModelHash, in.Systems[1].ModelHash = "m-shared", "m-shared", "m-onnx"
	return in
}

// A sweep runs each model stage once over the corpus (RunModel on the
// model's queue), and every system with that stage maps its outputs
// (MapFloor on the CPU queue) only once they are all stored; a system
// without a model stage infers its own tracks. GPU workers are claimed
// for the one ONNX model stage.
func TestSweepRunsEachModelOnce(t *testing.T) {
	env, a := newSweepEnv()
	env.RegisterWorkflow(ModelWorkflow)
	convs := []string{"c1", "c2", "c3", "c4", "c5"}
	stored(env, a, map[string][]string{"corpora/x": convs})
	env.OnActivity(a.PlanGenerated, mock.Anything, mock.Anything).Return(activities.CorpusPlan{
		Name: "c", Prefix: "corpora/x", Hash: "x", Conversations: convs, Ready: true}, nil)
	var mu sync.Mutex
	var log []string
	ran := map[string]int{}
	env.OnActivity(a.RunModel, mock.Anything, mock.Anything).After(time.Minute).Return(func(ctx context.Context, in activities.ModelInput) (activities.ModelResult, error) {
		mu.Lock()
		defer mu.Unlock()
		ran[in.System.ModelHash] += len(in.Conversations)
		log = append(log, "model "+in.System.ModelHash)
		return activities.ModelResult{Ran: len(in.Conversations)}, nil
	})
	mapped := map[string]int{}
	env.OnActivity(a.MapFloor, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.FloorInput) error {
		mu.Lock()
		defer mu.Unlock()
		mapped[in.System.Name] += len(in.Conversations)
		log = append(log, "map "+in.System.ModelHash)
		return nil
	})
	inferred := map[string]int{}
	env.OnActivity(a.Infer, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.InferInput) error {
		mu.Lock()
		defer mu.Unlock()
		inferred[in.System.Name] += len(in.Conversations)
		if in.Conversation != "" {
			inferred[in.System.Name]++
		}
		return nil
	})
	var replicas int32
	env.OnActivity(a.AcquireGPU, mock.Anything, mock.Anything).Return(func(_ context.Context, c activities.CapacityInput) error {
		replicas = c.Replicas
		return nil
	})
	env.OnActivity(a.ReleaseGPU, mock.Anything, mock.Anything).Return(nil)
	env.OnActivity(a.Evaluate, mock.Anything, mock.Anything).Return("evaluations/x", nil)
	env.OnActivity(a.Aggregate, mock.Anything, mock.Anything).Return("bundle-1", nil)
	env.ExecuteWorkflow(SweepWorkflow, in5(stagedInput()))
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ran, map[string]int{"m-shared": 5, "m-onnx": 5}) {
		t.Errorf("model stages ran on %v conversations, want each model once on 5", ran)
	}
	if !reflect.DeepEqual(mapped, map[string]int{"sys0": 5, "sys1": 5, "sys2": 5}) || !reflect.DeepEqual(inferred, map[string]int{"sys3": 5}) {
		t.Errorf("mapped %v, inferred %v", mapped, inferred)
	}
	for _, m := range []string{"m-shared", "m-onnx"} {
		lastModel := slices.Index(log, "model "+m)
		for i, l := range log {
			if l == "model "+m {
				lastModel = i
			}
		}
		if firstMap := slices.Index(log, "map "+m); firstMap < lastModel {
			t.Errorf("%s mapped before its model stage completed: %v", m, log)
		}
	}
	if replicas != 1 {
		t.Errorf("claimed %d GPU workers, want 1 for the one ONNX model stage", replicas)
	}
}

// in5 is the input with the spec's concurrency at 5.
func in5(in sweep.Input) sweep.Input {
	in.Spec.Concurrency = 5
	return in
}

// A model stage that fails fails the sweep, naming the stage, and its
// evaluations map nothing.
func TestFailedModelStageFailsTheSweep(t *testing.T) {
	env, a := newSweepEnv()
	env.RegisterWorkflow(ModelWorkflow)
	stored(env, a, map[string][]string{"corpora/x": {"c1"}})
	env.OnActivity(a.PlanGenerated, mock.Anything, mock.Anything).Return(activities.CorpusPlan{
		Name: "c", Prefix: "corpora/x", Hash: "x", Conversations: []string{"c1"}, Ready: true}, nil)
	env.OnActivity(a.RunModel, mock.Anything, mock.Anything).Return(activities.ModelResult{},
		temporal.NewNonRetryableApplicationError("model file missing", sweep.BadInput, nil))
	mapped := 0
	env.OnActivity(a.MapFloor, mock.Anything, mock.Anything).Return(func(context.Context, activities.FloorInput) error {
		mapped++
		return nil
	})
	env.OnActivity(a.Infer, mock.Anything, mock.Anything).Return(nil)
	env.OnActivity(a.AcquireGPU, mock.Anything, mock.Anything).Return(nil)
	env.OnActivity(a.ReleaseGPU, mock.Anything, mock.Anything).Return(nil)
	env.OnActivity(a.Evaluate, mock.Anything, mock.Anything).Return("evaluations/x", nil)
	env.ExecuteWorkflow(SweepWorkflow, stagedInput())
	err := env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "model stage model-sys") || !strings.Contains(err.Error(), "model file missing") {
		t.Fatalf("sweep error %v, want the model stage's failure", err)
	}
	if mapped != 0 {
		t.Errorf("%d batches mapped without their model outputs", mapped)
	}
}
