// Package workflows holds floorbench's Temporal workflows: deterministic
// orchestration only (docs/architecture.md#workflows). They read like the plan of a sweep; all
// I/O happens in activities, and only store keys and hashes travel in
// payloads.
package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/sweep"
)

// SweepWorkflow runs a sweep (docs/architecture.md#workflows): check the
// spec, resolve every corpus, plan the evaluations (NewPlan), audit the
// generated corpora, evaluate every system on every corpus in child
// workflows, aggregate one bundle.
func SweepWorkflow(ctx workflow.Context, in sweep.Input) (sweep.Result, error) {
	s, err := newSweep(ctx, in)
	if err != nil {
		return sweep.Result{}, err
	}
	if err := s.checkSpec(ctx); err != nil {
		return sweep.Result{}, err
	}
	agents := s.startAgents(ctx)
	plans, err := s.resolveCorpora(ctx)
	if err != nil {
		return sweep.Result{}, err
	}
	seated := s.startSeated(ctx, plans, agents)
	plan := NewPlan(in, plans)
	audits := s.startAudits(ctx, plan)
	s.progress.Phase = "evaluation"
	release, err := acquireGPUs(ctx, in, plan)
	if err != nil {
		return sweep.Result{}, err
	}
	defer release()
	evaluations, err := s.evaluate(ctx, plan)
	if err != nil {
		return sweep.Result{}, err
	}
	refs, err := s.waitAudits(ctx, plan, audits)
	if err != nil {
		return sweep.Result{}, err
	}
	agentKeys, err := s.waitAgents(ctx, agents)
	if err != nil {
		return sweep.Result{}, err
	}
	seatedOutcomes, err := s.waitSeated(ctx, seated)
	if err != nil {
		return sweep.Result{}, err
	}
	return s.aggregate(ctx, activities.AggregateInput{Meta: plan.Meta, Evaluations: evaluations, Audits: refs, Agents: agentKeys, Seated: seatedOutcomes})
}

// sweepRun is a running SweepWorkflow: its input, its workflow id (the
// parent of its children) and the progress its query reports.
type sweepRun struct {
	in       sweep.Input
	self     string
	progress *Progress
}

// newSweep answers the progress query.
func newSweep(ctx workflow.Context, in sweep.Input) (*sweepRun, error) {
	p := &Progress{Phase: "corpora", SystemsTotal: len(in.Systems) * len(in.Corpora), Systems: len(in.Systems)}
	s := &sweepRun{in: in, self: workflow.GetInfo(ctx).WorkflowExecution.ID, progress: p}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (Progress, error) { return *p, nil }); err != nil {
		return nil, err
	}
	return s, nil
}

// checkSpec checks the spec under the worker's limits before anything
// runs.
func (s *sweepRun) checkSpec(ctx workflow.Context) error {
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: time.Minute, RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
	var a *activities.Activities // the worker's, with its limits
	return workflow.ExecuteLocalActivity(lctx, a.CheckSpec, s.in.Spec).Get(ctx, nil)
}

// resolveCorpora plans every corpus in its own CorpusWorkflow, all at once.
func (s *sweepRun) resolveCorpora(ctx workflow.Context) ([]activities.CorpusPlan, error) {
	sp := s.in.Spec
	futures := make([]workflow.ChildWorkflowFuture, len(s.in.Corpora))
	for i, c := range s.in.Corpora {
		name := "corpus-" + c.Name
		s.progress.started(s.self+"/"+name, ChildCorpus)
		futures[i] = workflow.ExecuteChildWorkflow(childOptions(ctx, s.self, name),
			CorpusWorkflow, CorpusInput{Source: c, Queues: sp.Queues, Concurrency: sp.Concurrency, Parent: s.self})
	}
	plans := make([]activities.CorpusPlan, len(futures))
	for i, f := range futures {
		if err := f.Get(ctx, &plans[i]); err != nil {
			return nil, fmt.Errorf("corpus %s: %w", s.in.Corpora[i].Name, err)
		}
		s.progress.finished(s.self + "/corpus-" + s.in.Corpora[i].Name)
		n := len(plans[i].Conversations)
		s.progress.ConversationsTotal += n
		s.progress.ConversationsGenerated += n
		s.progress.TracksTotal += n * len(s.in.Systems)
	}
	return plans, nil
}

// startAudits starts the plan's corpus audits on the CPU queue.
func (s *sweepRun) startAudits(ctx workflow.Context, plan Plan) []workflow.Future {
	actx := workflow.WithActivityOptions(ctx, activityOptions(s.in.Spec.Queues.CPU, time.Hour))
	var audits []workflow.Future
	for _, a := range plan.Audits {
		audits = append(audits, workflow.ExecuteActivity(actx, (*activities.Activities).Audit, a))
	}
	return audits
}

// evaluate starts every model stage and every evaluation of the plan at
// once. As a model stage completes, the evaluations that map its outputs
// are signalled (model-ready); the evaluations are waited for in the
// plan's order, and as a threshold source is stored, the evaluations
// waiting for it are signalled with its key. Children are started with
// their corpus by reference (corpusRef), so the sweep's history does not
// grow with systems × conversations. It returns the stored evaluations'
// keys, in the plan's evaluation order.
func (s *sweepRun) evaluate(ctx workflow.Context, plan Plan) ([]string, error) {
	models := s.startModels(ctx, plan)
	children := make([]workflow.ChildWorkflowFuture, len(plan.Evaluations))
	for i, e := range plan.Evaluations {
		ev := e.Input
		ev.Parent = s.self
		ev.Corpus = corpusRef(ev.Corpus)
		if ev.Transfer != nil {
			ev.Transfer = &activities.Transfer{Corpus: ev.Transfer.Corpus} // the key comes with the signal
		}
		s.progress.started(s.self+"/"+e.Name, ChildEvaluation)
		children[i] = workflow.ExecuteChildWorkflow(childOptions(ctx, s.self, e.Name), EvaluationWorkflow, ev)
	}
	ready := s.signalModelsReady(ctx, plan, models, children)
	keys := make([]string, len(children))
	for _, i := range plan.Order {
		e := plan.Evaluations[i]
		if e.Model >= 0 {
			if err := ready[e.Model].Get(ctx, nil); err != nil {
				return nil, err
			}
		}
		if err := children[i].Get(ctx, &keys[i]); err != nil {
			return nil, err
		}
		s.progress.finished(s.self + "/" + e.Name)
		s.progress.SystemsScored++
		s.progress.TracksInferred += len(e.Input.Corpus.Conversations)
		for _, j := range plan.Dependents(i) {
			if err := children[j].SignalChildWorkflow(ctx, transferReady, keys[i]).Get(ctx, nil); err != nil {
				return nil, err
			}
		}
	}
	return keys, nil
}

// startModels starts a ModelWorkflow per model stage of the plan.
func (s *sweepRun) startModels(ctx workflow.Context, plan Plan) []workflow.ChildWorkflowFuture {
	var models []workflow.ChildWorkflowFuture
	for _, m := range plan.Models {
		in := m.Input
		in.Parent = s.self
		in.Corpus = corpusRef(in.Corpus)
		s.progress.started(s.self+"/"+m.Name, ChildModel)
		models = append(models, workflow.ExecuteChildWorkflow(childOptions(ctx, s.self, m.Name), ModelWorkflow, in))
	}
	return models
}

// signalModelsReady signals, as each model stage completes, the
// evaluations that map its outputs. Each returned future is ready once
// its stage's evaluations are signalled, or fails with the stage.
func (s *sweepRun) signalModelsReady(ctx workflow.Context, plan Plan, models []workflow.ChildWorkflowFuture, children []workflow.ChildWorkflowFuture) []workflow.Future {
	ready := make([]workflow.Future, len(models))
	for m, model := range models {
		f, settle := workflow.NewFuture(ctx)
		ready[m] = f
		workflow.Go(ctx, func(ctx workflow.Context) {
			err := model.Get(ctx, nil)
			s.progress.finished(s.self + "/" + plan.Models[m].Name)
			for _, i := range plan.Models[m].Evaluations {
				if err != nil {
					break
				}
				err = children[i].SignalChildWorkflow(ctx, modelReady, nil).Get(ctx, nil)
			}
			if err != nil {
				err = fmt.Errorf("model stage %s: %w", plan.Models[m].Name, err)
			}
			settle.Set(nil, err)
		})
	}
	return ready
}

// waitAudits waits for the audits and names each one's corpus.
func (s *sweepRun) waitAudits(ctx workflow.Context, plan Plan, audits []workflow.Future) ([]activities.AuditRef, error) {
	var refs []activities.AuditRef
	for i, f := range audits {
		ref := activities.AuditRef{Corpus: plan.Audits[i].Corpus.Name}
		if err := f.Get(ctx, &ref.Key); err != nil {
			return nil, fmt.Errorf("audit of corpus %s: %w", ref.Corpus, err)
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// aggregate builds the bundle on the CPU queue.
func (s *sweepRun) aggregate(ctx workflow.Context, in activities.AggregateInput) (sweep.Result, error) {
	s.progress.Phase = "aggregation"
	var id string
	actx := workflow.WithActivityOptions(ctx, activityOptions(s.in.Spec.Queues.CPU, 10*time.Minute))
	if err := workflow.ExecuteActivity(actx, (*activities.Activities).Aggregate, in).Get(ctx, &id); err != nil {
		return sweep.Result{}, err
	}
	s.progress.Phase, s.progress.BundleID = "done", id
	return sweep.Result{BundleID: id}, nil
}

// queueFor sends ONNX-model systems to the GPU queue (docs/architecture.md#task-queues).
func queueFor(sys sweep.SystemRef, q spec.Queues) string {
	if sys.NeedsModel {
		return q.GPU
	}
	return q.CPU
}

func childOptions(ctx workflow.Context, parent, name string) workflow.Context {
	return workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: parent + "/" + name,
		TaskQueue:  workflow.GetInfo(ctx).TaskQueueName,
	})
}

// maxAttempts bounds an activity's tries. Transient faults (a worker
// killed, the store restarting) heal in a few; an activity waiting for a
// worker uses none, so a queue without workers waits rather than fails.
const maxAttempts = 20

// activityOptions: transient faults retry with backoff, at most maxAttempts
// times; what retrying cannot heal (bad input, a corrupt stored object)
// fails at once. Long activities heartbeat while they work, so a dead
// worker is noticed within the heartbeat timeout and a live one is never
// timed out.
func activityOptions(queue string, timeout time.Duration) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		TaskQueue:           queue,
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        30 * time.Second,
			MaximumAttempts:        maxAttempts,
			NonRetryableErrorTypes: sweep.NonRetryable(),
		},
	}
}

// acquireGPUs scales the GPU workers up for the ONNX models (one worker
// per model stage, or per evaluation that infers on its own, on the GPU
// queue, bounded by the pool's maximum) and returns the cleanup that
// scales them back. The cleanup runs on a disconnected context, so a
// failed or cancelled sweep releases too.
func acquireGPUs(ctx workflow.Context, in sweep.Input, plan Plan) (func(), error) {
	n := 0
	for _, m := range plan.Models {
		if m.Input.System.NeedsModel {
			n++
		}
	}
	for _, e := range plan.Evaluations {
		if e.Model < 0 && e.Input.System.NeedsModel {
			n++
		}
	}
	if n == 0 {
		return func() {}, nil
	}
	claim := activities.CapacityInput{Holder: workflow.GetInfo(ctx).WorkflowExecution.ID, Replicas: int32(n)}
	opts := activityOptions(in.Spec.Queues.CPU, 20*time.Minute)
	opts.HeartbeatTimeout = 0 // waiting for pods to become ready does not heartbeat
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), (*activities.Activities).AcquireGPU, claim).Get(ctx, nil)
	release := func() {
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		_ = workflow.ExecuteActivity(workflow.WithActivityOptions(dctx, opts), (*activities.Activities).ReleaseGPU, claim).Get(dctx, nil)
	}
	if err != nil {
		release()
		return nil, err
	}
	return release, nil
}
