package inprocess

import (
	"context"
	"fmt"
	"runtime/pprof"

	"golang.org/x/sync/errgroup"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/workflows"
)

// Run executes a resolved sweep's plan (workflows.NewPlan) the
// way SweepWorkflow does, by calling the activities directly: every corpus
// and every evaluation at once, each fan-out bounded by the spec's
// concurrency, and every activity admitted as a worker admits it (ad:
// slots per task queue, memory budget). It is the baseline of the
// orchestration-overhead benchmark and a way to run a sweep where no
// server is wanted. It has none of Temporal's durability: a crash loses
// the run (though not the outputs already stored, which a rerun reuses).
func Run(ctx context.Context, in sweep.Input, a *activities.Activities, ad activities.Admission) (string, error) {
	return (&inProcess{in: in, a: ad.Admitting(a), slots: newQueueSlots(ad)}).run(ctx)
}

// inProcess is a running Run.
type inProcess struct {
	in    sweep.Input
	a     *activities.Activities
	slots *queueSlots
	// observe, when set, is told of every activity (its name and input)
	// as it is started: tests compare the plan executed here with the
	// workflow's.
	observe func(activity string, input any)
}

func (r *inProcess) run(ctx context.Context) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	agentsDone := r.startAgents(ctx)
	defer func() {
		cancel()
		_, _ = agentsDone() // what failed first is returned; the agents stop with it
	}()
	plans, err := r.resolveCorpora(ctx)
	if err != nil {
		return "", err
	}
	plan := workflows.NewPlan(r.in, plans)
	cpu := r.in.Spec.Queues.CPU
	auditKeys := make([]string, len(plan.Audits))
	var evaluations []string
	g, gctx := errgroup.WithContext(ctx)
	for i, audit := range plan.Audits {
		g.Go(func() (err error) {
			auditKeys[i], err = call(gctx, r, cpu, "Audit", r.a.Audit, audit)
			if err != nil {
				return fmt.Errorf("audit of corpus %s: %w", audit.Corpus.Name, err)
			}
			return nil
		})
	}
	g.Go(func() (err error) {
		evaluations, err = r.evaluate(gctx, plan)
		return err
	})
	var seated []activities.SeatedOutcome
	g.Go(func() (err error) {
		seated, err = r.seatAll(gctx, plans, agentsDone)
		return err
	})
	if err := g.Wait(); err != nil {
		return "", err
	}
	agents, err := agentsDone()
	if err != nil {
		return "", err
	}
	agg := activities.AggregateInput{Meta: plan.Meta, Evaluations: evaluations, Agents: agents, Seated: seated}
	for i, audit := range plan.Audits {
		agg.Audits = append(agg.Audits, activities.AuditRef{Corpus: audit.Corpus.Name, Key: auditKeys[i]})
	}
	return call(ctx, r, cpu, "Aggregate", r.a.Aggregate, agg)
}

// resolveCorpora plans every corpus (and generates those not stored), all
// at once.
func (r *inProcess) resolveCorpora(ctx context.Context) ([]activities.CorpusPlan, error) {
	plans := make([]activities.CorpusPlan, len(r.in.Corpora))
	g, gctx := errgroup.WithContext(ctx)
	for i, c := range r.in.Corpora {
		g.Go(func() (err error) {
			if plans[i], err = r.resolveCorpus(gctx, c); err != nil {
				return fmt.Errorf("corpus %s: %w", c.Name, err)
			}
			return nil
		})
	}
	return plans, g.Wait()
}

// resolveCorpus is CorpusWorkflow in process.
func (r *inProcess) resolveCorpus(ctx context.Context, c sweep.CorpusSource) (plan activities.CorpusPlan, err error) {
	q := r.in.Spec.Queues
	switch p := workflows.Planning(c); {
	case p.Stored != nil:
		plan, err = call(ctx, r, q.CPU, "PlanStored", r.a.PlanStored, *p.Stored)
	case p.Ingest != nil:
		plan, err = call(ctx, r, q.CPU, "IngestLocal", r.a.IngestLocal, *p.Ingest)
	default:
		plan, err = call(ctx, r, q.CPU, "PlanGenerated", r.a.PlanGenerated, *p.Generated)
	}
	if err != nil || plan.Ready {
		return plan, err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, r.in.Spec.Concurrency))
	for _, gen := range workflows.Generation(plan) {
		g.Go(func() error {
			_, err := call(gctx, r, q.Synth, "GenerateConversation", noResult(r.a.GenerateConversation), gen)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return plan, err
	}
	_, err = call(ctx, r, q.CPU, "FinalizeCorpus", noResult(r.a.FinalizeCorpus), activities.FinalizeInput{Plan: plan})
	plan.Ready = err == nil
	return plan, err
}

// evaluate runs every model stage and every evaluation of the plan at
// once; an evaluation that maps a model stage's outputs maps them once
// the stage is done, and one that takes its thresholds from another
// evaluates once that one is stored, with the key it returned. It returns
// the evaluations' keys in the plan's order.
func (r *inProcess) evaluate(ctx context.Context, plan workflows.Plan) ([]string, error) {
	keys := make([]string, len(plan.Evaluations))
	stored := make([]chan struct{}, len(keys))
	for i := range stored {
		stored[i] = make(chan struct{})
	}
	g, gctx := errgroup.WithContext(ctx)
	ran := r.runModels(gctx, g, plan)
	for _, i := range plan.Order {
		e := plan.Evaluations[i]
		g.Go(func() (err error) {
			if e.Model >= 0 {
				select {
				case <-ran[e.Model]:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			keys[i], err = r.evaluation(gctx, e.Input, func() (string, error) {
				select {
				case <-stored[e.Source]:
					return keys[e.Source], nil
				case <-gctx.Done():
					return "", gctx.Err()
				}
			})
			if err == nil {
				close(stored[i])
			}
			return err
		})
	}
	return keys, g.Wait()
}

// runModels starts every model stage of the plan in g and returns, per
// stage, a channel closed once its outputs are all stored.
func (r *inProcess) runModels(ctx context.Context, g *errgroup.Group, plan workflows.Plan) []chan struct{} {
	ran := make([]chan struct{}, len(plan.Models))
	for m, pm := range plan.Models {
		ran[m] = make(chan struct{})
		g.Go(func() error {
			if err := r.model(ctx, pm.Input); err != nil {
				return fmt.Errorf("model stage %s: %w", pm.Name, err)
			}
			close(ran[m])
			return nil
		})
	}
	return ran
}

// model is ModelWorkflow in process: RunModel in the planned batches, at
// most the spec's concurrency at once.
func (r *inProcess) model(ctx context.Context, in workflows.ModelStageInput) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, in.Concurrency))
	for _, batch := range workflows.Batches(in.Corpus.Conversations, in.Batch) {
		g.Go(func() error {
			_, err := call(gctx, r, in.Queue, "RunModel", r.a.RunModel, in.RunModel(batch))
			return err
		})
	}
	return g.Wait()
}

// evaluation is EvaluationWorkflow in process: the tracks in the planned
// batches (mapped from the model stage's outputs, or inferred; at most
// the spec's concurrency at once), then, for an evaluation with a
// threshold source, the source's stored key, then Evaluate.
func (r *inProcess) evaluation(ctx context.Context, in workflows.EvaluationInput, source func() (string, error)) (string, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, in.Concurrency))
	for _, batch := range in.Batches(in.Corpus.Conversations) {
		g.Go(func() error {
			if in.Staged {
				_, err := call(gctx, r, in.CPUQueue, "MapFloor", noResult(r.a.MapFloor), in.MapFloor(batch))
				return err
			}
			_, err := call(gctx, r, in.Queue, "Infer", noResult(r.a.Infer), in.Infer(batch))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return "", err
	}
	if in.Transfer != nil {
		key, err := source()
		if err != nil {
			return "", err
		}
		in = in.TransferStored(key)
	}
	return call(ctx, r, in.CPUQueue, "Evaluate", r.a.Evaluate, in.Evaluate())
}

// call runs an activity once a slot of its queue is free, as a worker
// polling that queue would.
func call[I, O any](ctx context.Context, r *inProcess, queue, name string, activity func(context.Context, I) (O, error), in I) (O, error) {
	if r.observe != nil {
		r.observe(name, in)
	}
	var out O
	err := r.slots.run(ctx, queue, func(ctx context.Context) (err error) {
		// A CPU profile splits by activity (go tool pprof -tagfocus activity=NAME).
		pprof.Do(ctx, pprof.Labels("activity", name), func(ctx context.Context) {
			out, err = activity(ctx, in)
		})
		return err
	})
	return out, err
}

// noResult adapts an activity that returns only an error to call.
func noResult[I any](activity func(context.Context, I) error) func(context.Context, I) (struct{}, error) {
	return func(ctx context.Context, in I) (struct{}, error) { return struct{}{}, activity(ctx, in) }
}
