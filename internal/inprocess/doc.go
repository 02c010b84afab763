// Package inprocess runs a resolved sweep's plan (workflows.NewPlan) in
// this process, the way SweepWorkflow and its children do, by calling the
// activities directly under the same admission as a worker
// (activities.Admission): the baseline of the orchestration-overhead
// benchmark, and a way to run a sweep where no server is wanted. It has
// none of Temporal's durability: a crash loses the run (though not the
// outputs already stored, which a rerun reuses).
//
// It imports activities, workflows (the plan and the inputs its children
// take), sweep, spec and agent, never a Temporal client.
package inprocess
