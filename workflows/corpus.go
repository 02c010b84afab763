package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/spec"
)

// CorpusInput asks for one corpus in the store.
type CorpusInput struct {
	Source      CorpusSource
	Queues      spec.Queues
	Concurrency int
	Parent      string // the sweep (executions before progressByQuery signal it)
	// Next is where a continued-as-new run resumes its fan-out.
	Next int
	Plan *activities.CorpusPlan
}

// CorpusWorkflow resolves a corpus: a local folder is ingested; a generated
// one is planned, generated one conversation per activity on the synth
// queue (skipping what the store already has) and finalised.
func CorpusWorkflow(ctx workflow.Context, in CorpusInput) (activities.CorpusPlan, error) {
	var plan activities.CorpusPlan
	progress, err := newChildReporter(ctx, in.Parent)
	if err != nil {
		return plan, err
	}
	cpu := workflow.WithActivityOptions(ctx, activityOptions(in.Queues.CPU, 30*time.Minute))
	switch {
	case in.Plan != nil:
		plan = *in.Plan
	case in.Source.Prefix != "":
		err = workflow.ExecuteActivity(cpu, (*activities.Activities).PlanStored,
			activities.PlanStoredInput{Name: in.Source.Name, Prefix: in.Source.Prefix}).Get(ctx, &plan)
	case in.Source.Generate == nil:
		err = workflow.ExecuteActivity(cpu, (*activities.Activities).IngestLocal,
			activities.IngestInput{Name: in.Source.Name, Dir: in.Source.Dir}).Get(ctx, &plan)
	default:
		err = workflow.ExecuteActivity(cpu, (*activities.Activities).PlanGenerated, activities.PlanGeneratedInput{
			Name: in.Source.Name, Preset: in.Source.Generate.Preset, Seed: in.Source.Generate.Seed}).Get(ctx, &plan)
	}
	if err != nil {
		return plan, err
	}
	progress.plan(len(plan.Conversations), in.Next)
	if in.Plan == nil {
		progress.send(progressDelta{Planned: len(plan.Conversations)})
	}
	if plan.Ready {
		progress.send(progressDelta{Generated: len(plan.Conversations) - in.Next})
		progress.plan(len(plan.Conversations), len(plan.Conversations))
		return plan, nil
	}
	synth := workflow.WithActivityOptions(ctx, activityOptions(in.Queues.Synth, 10*time.Minute))
	progress.batch(func(n int) progressDelta { return progressDelta{Generated: n} })
	next, err := fanOut(ctx, in.Next, len(plan.Conversations), in.Concurrency, func(i int) workflow.Future {
		return workflow.ExecuteActivity(synth, (*activities.Activities).GenerateConversation, activities.GenerateInput{
			Prefix: plan.Prefix, Preset: plan.Preset, Seed: plan.Seed, Conversation: plan.Conversations[i]})
	}, func(int) { progress.done(1) })
	progress.flush()
	if err != nil {
		return plan, err
	}
	if next < len(plan.Conversations) {
		in.Next, in.Plan = next, &plan
		return plan, workflow.NewContinueAsNewError(ctx, CorpusWorkflow, in)
	}
	err = workflow.ExecuteActivity(cpu, (*activities.Activities).FinalizeCorpus, activities.FinalizeInput{Plan: plan}).Get(ctx, nil)
	plan.Ready = err == nil
	return plan, err
}
