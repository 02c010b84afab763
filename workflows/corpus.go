package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/sweep"
)

// CorpusInput asks for one corpus in the store.
type CorpusInput struct {
	Source      sweep.CorpusSource
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
	progress, err := newChildReporter(ctx)
	if err != nil {
		return plan, err
	}
	cpu := workflow.WithActivityOptions(ctx, activityOptions(in.Queues.CPU, 30*time.Minute))
	if in.Plan != nil {
		plan = *in.Plan
	} else {
		err = planCorpus(cpu, Planning(in.Source)).Get(ctx, &plan)
	}
	if err != nil {
		return plan, err
	}
	progress.plan(len(plan.Conversations), in.Next)
	if plan.Ready {
		progress.plan(len(plan.Conversations), len(plan.Conversations))
		return plan, nil
	}
	synth := workflow.WithActivityOptions(ctx, activityOptions(in.Queues.Synth, 10*time.Minute))
	generation := Generation(plan)
	next, err := fanOut(ctx, in.Next, len(generation), in.Concurrency, func(i int) workflow.Future {
		return workflow.ExecuteActivity(synth, (*activities.Activities).GenerateConversation, generation[i])
	}, func(int) { progress.done(1) })
	if err != nil {
		return plan, err
	}
	if next < len(generation) {
		in.Next, in.Plan = next, &plan
		return plan, workflow.NewContinueAsNewError(ctx, CorpusWorkflow, in)
	}
	err = workflow.ExecuteActivity(cpu, (*activities.Activities).FinalizeCorpus, activities.FinalizeInput{Plan: plan}).Get(ctx, nil)
	plan.Ready = err == nil
	return plan, err
}

// planCorpus runs the activity that planning names.
func planCorpus(cpu workflow.Context, planning CorpusPlanning) workflow.Future {
	switch {
	case planning.Stored != nil:
		return workflow.ExecuteActivity(cpu, (*activities.Activities).PlanStored, *planning.Stored)
	case planning.Ingest != nil:
		return workflow.ExecuteActivity(cpu, (*activities.Activities).IngestLocal, *planning.Ingest)
	default:
		return workflow.ExecuteActivity(cpu, (*activities.Activities).PlanGenerated, *planning.Generated)
	}
}
