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
	// each with its own bounded inference fan-out.
	type pair struct {
		sys  activities.SystemRef
		plan activities.CorpusPlan
	}
	var pairs []pair
	for _, sys := range in.Systems {
		for _, plan := range plans {
			pairs = append(pairs, pair{sys, plan})
		}
	}
	keys := make([]string, len(pairs))
	outer, octx := errgroup.WithContext(ctx)
	for i, p := range pairs {
		outer.Go(func() error {
			g, gctx := errgroup.WithContext(octx)
			g.SetLimit(s.Concurrency)
			for _, id := range p.plan.Conversations {
				g.Go(func() error {
					return a.Infer(gctx, activities.InferInput{System: p.sys, Corpus: p.plan, Conversation: id})
				})
			}
			if err := g.Wait(); err != nil {
				return err
			}
			var err error
			keys[i], err = a.Evaluate(octx, activities.EvaluateInput{System: p.sys, Corpus: p.plan, Params: s.Params(), Resamples: s.Resamples(), Seed: s.Bootstrap.Seed})
			return err
		})
	}
	if err := outer.Wait(); err != nil {
		return "", err
	}
	return a.Aggregate(ctx, activities.AggregateInput{Meta: workflows.BundleMeta(in, plans), Evaluations: keys})
}
