package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/sweep"
)

// SeatedInput asks for one agent seated in some of the sweep's corpora as
// a system (docs/agents.md#seated-agents-in-sweeps).
type SeatedInput struct {
	Agent spec.Agent
	// Corpora are the agent's corpora by reference, in the order its spec
	// names them.
	Corpora   []activities.CorpusPlan
	Queues    spec.Queues
	Params    score.Params
	Resamples int
	Seed      uint64
	Parent    string
	// Plans are the corpora's seats, once planned; Next is the first seat
	// not yet played and Outcome what the seats before it did (a run
	// continued as new carries all three).
	Plans   []activities.SeatPlan
	Next    int
	Outcome SeatedOutcome
}

// SeatedOutcome is what a seated agent's sessions did, and its outcome on
// each corpus (activities.EvaluateSeated), in the input's corpus order.
type SeatedOutcome struct {
	Name                           string
	Seats, Played, Resumed, Failed int
	Corpora                        []activities.SeatedOutcome
}

// Seat timing (docs/agents.md#seated-agents-in-sweeps).
const (
	// SeatAttempts is how often a seat's session is tried: a dropped
	// connection or a restarted agent is retried, an agent that fails
	// every time is recorded as failed.
	SeatAttempts = 3
	// seatTimeout bounds one attempt; the session's own deadline (its
	// length and the handshake allowance, at most four hours of audio)
	// ends it before.
	seatTimeout = 5 * time.Hour
)

// SeatedWorkflow seats one agent (docs/architecture.md#workflows): plan
// its seats on each of its corpora, play every seat as its own activity
// at most the agent's concurrency at once (CPU queue), each retried on a
// failed session and recorded as failed once retries are spent, then
// evaluate it on each corpus from the stored sessions. Its progress query
// counts seats and says how long they take.
func SeatedWorkflow(ctx workflow.Context, in SeatedInput) (SeatedOutcome, error) {
	progress := ChildProgress{}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (ChildProgress, error) { return progress, nil }); err != nil {
		return SeatedOutcome{}, err
	}
	cpu := workflow.WithActivityOptions(ctx, activityOptions(in.Queues.CPU, 30*time.Minute))
	if in.Plans == nil {
		in.Plans = make([]activities.SeatPlan, len(in.Corpora))
		for i, c := range in.Corpora {
			if err := workflow.ExecuteActivity(cpu, (*activities.Activities).PlanSeats,
				activities.PlanSeatsInput{Agent: in.Agent, Corpus: c}).Get(ctx, &in.Plans[i]); err != nil {
				return SeatedOutcome{}, err
			}
		}
	}
	seats := in.Seats()
	in.Outcome.Name, in.Outcome.Seats = in.Agent.Name, len(seats)
	progress = ChildProgress{Total: len(seats), Done: in.Next, Estimate: in.Estimate()}
	outcomes := make([]activities.SeatOutcome, len(seats))
	next, err := fanOut(ctx, in.Next, len(seats), in.Agent.Concurrency,
		func(i int) workflow.Future { return playSeat(ctx, in.Queues.CPU, seats[i], &outcomes[i]) },
		func(i int) {
			progress.Done++
			in.Outcome.count(outcomes[i])
		})
	if err != nil {
		return SeatedOutcome{}, err
	}
	if next < len(seats) {
		in.Next = next
		return SeatedOutcome{}, workflow.NewContinueAsNewError(ctx, SeatedWorkflow, in)
	}
	for _, c := range in.Corpora {
		var o activities.SeatedOutcome
		if err := workflow.ExecuteActivity(cpu, (*activities.Activities).EvaluateSeated, activities.EvaluateSeatedInput{
			Agent: in.Agent, Corpus: c, Params: in.Params, Resamples: in.Resamples, Seed: in.Seed}).Get(ctx, &o); err != nil {
			return SeatedOutcome{}, err
		}
		in.Outcome.Corpora = append(in.Outcome.Corpora, o)
	}
	return in.Outcome, nil
}

// Seats are the agent's seats on all its corpora, corpus by corpus.
func (in SeatedInput) Seats() []activities.SeatInput {
	var out []activities.SeatInput
	for i, p := range in.Plans {
		for _, s := range p.Seats {
			out = append(out, activities.SeatInput{Agent: in.Agent, Corpus: in.Corpora[i], Seat: s})
		}
	}
	return out
}

// Estimate is how long all the agent's seats take at most on the wall.
func (in SeatedInput) Estimate() time.Duration {
	var d time.Duration
	for _, p := range in.Plans {
		d += p.Estimate
	}
	return d
}

// count adds one seat's outcome.
func (o *SeatedOutcome) count(s activities.SeatOutcome) {
	switch {
	case s.Failed:
		o.Failed++
	case s.Played:
		o.Played++
	default:
		o.Resumed++
	}
}

// playSeat plays one seat and, when every attempt failed, records it as
// failed with the last attempt's error: a seat never fails the
// evaluation. The returned future is settled with out filled.
func playSeat(ctx workflow.Context, queue string, s activities.SeatInput, out *activities.SeatOutcome) workflow.Future {
	f, settle := workflow.NewFuture(ctx)
	workflow.Go(ctx, func(ctx workflow.Context) {
		err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, seatOptions(queue)),
			(*activities.Activities).PlaySeat, s).Get(ctx, out)
		if err != nil && ctx.Err() == nil {
			rec := workflow.WithActivityOptions(ctx, activityOptions(queue, 5*time.Minute))
			err = workflow.ExecuteActivity(rec, (*activities.Activities).RecordFailedSeat,
				activities.FailedSeatInput{Seat: s, Error: TrialError(err)}).Get(ctx, out)
		}
		settle.Set(nil, err)
	})
	return f
}

// seatOptions: a seat's session is retried a few times with a short
// backoff (an agent restarting comes back within seconds); a dead worker
// is noticed within the heartbeat timeout.
func seatOptions(queue string) workflow.ActivityOptions {
	o := activityOptions(queue, seatTimeout)
	o.RetryPolicy = &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2,
		MaximumInterval: 10 * time.Second, MaximumAttempts: SeatAttempts, NonRetryableErrorTypes: sweep.NonRetryable()}
	return o
}
