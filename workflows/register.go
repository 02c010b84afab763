package workflows

import (
	"go.temporal.io/sdk/worker"
)

// Register adds every workflow to a worker.
func Register(w worker.Registry) {
	w.RegisterWorkflow(SweepWorkflow)
	w.RegisterWorkflow(CorpusWorkflow)
	w.RegisterWorkflow(EvaluationWorkflow)
	w.RegisterWorkflow(ModelWorkflow)
	w.RegisterWorkflow(NightlyWorkflow)
	w.RegisterWorkflow(AgentWorkflow)
	w.RegisterWorkflow(SeatedWorkflow)
}
