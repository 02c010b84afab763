package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/score"
)

// EvaluationInput asks for one system on one corpus.
type EvaluationInput struct {
	System      activities.SystemRef
	Corpus      activities.CorpusPlan
	Queue       string // where inference runs
	CPUQueue    string
	Params      score.Params
	Resamples   int
	Seed        uint64
	Concurrency int
	Parent      string
	Next        int // where a continued-as-new run resumes inference
	// Transfer is where a corpus without dev data takes its thresholds.
	Transfer *activities.Transfer
}

// EvaluationWorkflow infers the system's tracks on every conversation (one
// activity each, on the system's queue, bounded), then evaluates: dev
// sweep and operating point, test at the frozen threshold, breakdowns and
// bootstrap intervals. It returns the stored evaluation's key.
func EvaluationWorkflow(ctx workflow.Context, in EvaluationInput) (string, error) {
	infer := workflow.WithActivityOptions(ctx, activityOptions(in.Queue, 30*time.Minute))
	add, flush := batched(len(in.Corpus.Conversations), func(n int) { signalProgress(ctx, in.Parent, progressDelta{Inferred: n}) })
	next, err := fanOut(ctx, in.Next, len(in.Corpus.Conversations), in.Concurrency, func(i int) workflow.Future {
		return workflow.ExecuteActivity(infer, (*activities.Activities).Infer, activities.InferInput{
			System: in.System, Corpus: in.Corpus, Conversation: in.Corpus.Conversations[i]})
	}, func(int) { add() })
	flush()
	if err != nil {
		return "", err
	}
	if next < len(in.Corpus.Conversations) {
		in.Next = next
		return "", workflow.NewContinueAsNewError(ctx, EvaluationWorkflow, in)
	}
	var key string
	cpu := workflow.WithActivityOptions(ctx, activityOptions(in.CPUQueue, 30*time.Minute))
	err = workflow.ExecuteActivity(cpu, (*activities.Activities).Evaluate, activities.EvaluateInput{
		System: in.System, Corpus: in.Corpus, Params: in.Params, Resamples: in.Resamples, Seed: in.Seed, Transfer: in.Transfer}).Get(ctx, &key)
	return key, err
}
