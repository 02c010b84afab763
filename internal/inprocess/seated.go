package inprocess

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/workflows"
)

// seatAll seats every seated agent of the sweep as SeatedWorkflow does,
// once the agents' trials are done (both talk to the same endpoints), and
// returns their outcomes in the spec's order.
func (r *inProcess) seatAll(ctx context.Context, plans []activities.CorpusPlan, trialsDone func() ([]string, error)) ([]activities.SeatedOutcome, error) {
	var out []activities.SeatedOutcome
	for _, a := range r.in.Spec.Agents {
		if a.Seated == nil {
			continue
		}
		if _, err := trialsDone(); err != nil {
			return nil, err
		}
		o, err := r.seatAgent(ctx, workflows.NewSeatedInput(r.in.Spec, a, plans))
		if err != nil {
			return nil, fmt.Errorf("seated agent %s: %w", a.Name, err)
		}
		out = append(out, o...)
	}
	return out, nil
}

// seatAgent is SeatedWorkflow in process: the seats of every corpus,
// every seat (at most the agent's concurrency at once), the evaluations.
func (r *inProcess) seatAgent(ctx context.Context, in workflows.SeatedInput) ([]activities.SeatedOutcome, error) {
	cpu := in.Queues.CPU
	for _, c := range in.Corpora {
		p, err := call(ctx, r, cpu, "PlanSeats", r.a.PlanSeats, activities.PlanSeatsInput{Agent: in.Agent, Corpus: c})
		if err != nil {
			return nil, err
		}
		in.Plans = append(in.Plans, p)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(in.Agent.Concurrency)
	for _, s := range in.Seats() {
		g.Go(func() error { return r.seat(gctx, cpu, s) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []activities.SeatedOutcome
	for _, c := range in.Corpora {
		o, err := call(ctx, r, cpu, "EvaluateSeated", r.a.EvaluateSeated, activities.EvaluateSeatedInput{
			Agent: in.Agent, Corpus: c, Params: in.Params, Resamples: in.Resamples, Seed: in.Seed})
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// seat plays one seat with the workflow's retries (SeatAttempts, the wait
// doubling from a second) and records it as failed when every attempt
// fails.
func (r *inProcess) seat(ctx context.Context, queue string, s activities.SeatInput) error {
	err := agent.Retry(ctx, workflows.SeatAttempts, time.Second, activities.IsBadInput, func() error {
		_, err := call(ctx, r, queue, "PlaySeat", r.a.PlaySeat, s)
		return err
	})
	if err == nil || ctx.Err() != nil {
		return ctx.Err()
	}
	_, err = call(ctx, r, queue, "RecordFailedSeat", r.a.RecordFailedSeat, activities.FailedSeatInput{Seat: s, Error: workflows.TrialError(err)})
	return err
}
