package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/sweep"
)

// ModelStageInput asks for a model stage's outputs on every conversation
// of a corpus.
type ModelStageInput struct {
	// System is the first of the sweep's systems that run the model; its
	// ModelHash names the outputs.
	System   sweep.SystemRef
	Corpus   activities.CorpusPlan
	Queue    string // where the model runs
	CPUQueue string
	// Batch is the number of conversations per RunModel activity
	// (activities.ModelBatch).
	Batch       int
	Concurrency int
	Parent      string
	Next        int // where a continued-as-new run resumes
}

// modelReady is the signal that tells an evaluation whose system has a
// model stage that the stage's outputs are all stored.
const modelReady = "model-ready"

// ModelWorkflow runs a model stage: RunModel over the corpus's
// conversations in batches, one activity each, on the model's queue (the
// GPU queue for ONNX models), bounded by the sweep's concurrency,
// continuing as new when its history grows long. It returns once every
// conversation's output is stored.
func ModelWorkflow(ctx workflow.Context, in ModelStageInput) error {
	progress, err := newChildReporter(ctx)
	if err != nil {
		return err
	}
	convs := in.Corpus.Conversations
	if convs == nil {
		var plan activities.CorpusPlan
		cpu := workflow.WithActivityOptions(ctx, activityOptions(in.CPUQueue, 10*time.Minute))
		if err := workflow.ExecuteActivity(cpu, (*activities.Activities).PlanStored,
			activities.PlanStoredInput{Name: in.Corpus.Name, Prefix: in.Corpus.Prefix}).Get(ctx, &plan); err != nil {
			return err
		}
		convs = plan.Conversations
	}
	batches := Batches(convs, in.Batch)
	progress.plan(len(convs), min(len(convs), in.Next*in.Batch))
	run := workflow.WithActivityOptions(ctx, activityOptions(in.Queue, time.Hour))
	next, err := fanOut(ctx, in.Next, len(batches), in.Concurrency, func(i int) workflow.Future {
		return workflow.ExecuteActivity(run, (*activities.Activities).RunModel, in.RunModel(batches[i]))
	}, func(i int) { progress.done(len(batches[i])) })
	if err != nil {
		return err
	}
	if next < len(batches) {
		in.Next = next
		return workflow.NewContinueAsNewError(ctx, ModelWorkflow, in)
	}
	return nil
}

// RunModel is the activity input for one batch.
func (in ModelStageInput) RunModel(batch []string) activities.ModelInput {
	return activities.ModelInput{System: in.System, Corpus: corpusRef(in.Corpus), Conversations: batch}
}
