package orchestrate

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/workflows"
)

// RunInProcess runs a resolved sweep's plan by calling the activities
// directly, with the same bounded concurrency and no Temporal: the baseline
// of the orchestration-overhead benchmark, and a way to run a sweep where no
// server is wanted. It has none of Temporal's durability: a crash loses the
// run (though not the outputs already stored, which a rerun reuses).
func RunInProcess(ctx context.Context, in workflows.SweepInput, a *activities.Activities) (string, error) {
	s := in.Spec
	plans := make([]activities.CorpusPlan, len(in.Corpora))
	for i, c := range in.Corpora {
		var err error
		switch {
		case c.Prefix != "":
			plans[i], err = a.PlanStored(ctx, activities.PlanStoredInput{Name: c.Name, Prefix: c.Prefix})
		case c.Generate == nil:
			plans[i], err = a.IngestLocal(ctx, activities.IngestInput{Name: c.Name, Dir: c.Dir})
		default:
			plans[i], err = a.PlanGenerated(ctx, activities.PlanGeneratedInput{Name: c.Name, Preset: c.Generate.Preset, Seed: c.Generate.Seed})
		}
		if err != nil {
			return "", fmt.Errorf("corpus %s: %w", c.Name, err)
		}
		if c.Generate == nil || plans[i].Ready {
			continue
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(s.Concurrency)
		for _, id := range plans[i].Conversations {
			g.Go(func() error {
				return a.GenerateConversation(gctx, activities.GenerateInput{Prefix: plans[i].Prefix, Preset: plans[i].Preset, Seed: plans[i].Seed, Conversation: id})
			})
		}
		if err := g.Wait(); err != nil {
			return "", err
		}
		if err := a.FinalizeCorpus(ctx, activities.FinalizeInput{Plan: plans[i]}); err != nil {
			return "", err
		}
	}
	// Like the sweep workflow: every system x corpus evaluation at once,
	// each with its own bounded inference fan-out; one of a corpus without
	// dev data evaluates once its threshold source is stored.
	sources := workflows.TransferSources(s, plans)
	n := len(plans)
	keys := make([]string, len(in.Systems)*n)
	stored := make([]chan struct{}, len(keys))
	for i := range stored {
		stored[i] = make(chan struct{})
	}
	g, gctx := errgroup.WithContext(ctx)
	for i := range keys {
		ev := activities.EvaluateInput{System: in.Systems[i/n], Corpus: plans[i%n], Params: s.Params(), Resamples: s.Resamples(), Seed: s.Bootstrap.Seed}
		var source chan struct{}
		if src := sources[i%n]; src >= 0 {
			j := i/n*n + src
			ev.Transfer = &activities.Transfer{Corpus: plans[src].Name,
				Evaluation: activities.EvaluationKey(activities.EvaluateInput{System: ev.System, Corpus: plans[src], Params: ev.Params, Resamples: ev.Resamples, Seed: ev.Seed})}
			source = stored[j]
		}
		g.Go(func() (err error) {
			keys[i], err = evaluate(gctx, a, ev, s.Concurrency, source)
			if err == nil {
				close(stored[i])
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return "", err
	}
	return a.Aggregate(ctx, activities.AggregateInput{Meta: workflows.BundleMeta(in, plans), Evaluations: keys})
}

// evaluate infers a system's tracks on every conversation of a corpus in
// the workflow's batches (bounded) and evaluates them, once source (when
// not nil) is closed.
func evaluate(ctx context.Context, a *activities.Activities, in activities.EvaluateInput, concurrency int, source <-chan struct{}) (string, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(concurrency)
	convs := in.Corpus.Conversations
	for _, batch := range workflows.Batches(convs, activities.InferBatch(len(convs), concurrency)) {
		g.Go(func() error {
			return a.Infer(gctx, activities.InferInput{System: in.System, Corpus: in.Corpus, Conversations: batch})
		})
	}
	if err := g.Wait(); err != nil {
		return "", err
	}
	if source != nil {
		select {
		case <-source:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return a.Evaluate(ctx, in)
}
