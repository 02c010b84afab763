package workflows

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/spec"
)

// seatedSpec is a spec of two corpora and one agent seated in both.
func seatedSpec(concurrency int) spec.Sweep {
	s := spec.Sweep{Name: "seated",
		Corpora: []spec.Corpus{{Name: "a", S3: "corpora/a"}, {Name: "b", S3: "corpora/b"}},
		Systems: []spec.System{{Name: "rms", Builtin: "rms"}},
		Agents: []spec.Agent{{Name: "bot", Protocol: "duplex", Endpoint: "ws://127.0.0.1:1/", Concurrency: concurrency,
			Seated: &spec.Seated{}}}}
	s.Normalise()
	return s
}

// seatRecorder answers PlaySeat: it counts the seats in flight (never
// more than the agent's concurrency) and each seat's attempts, and plays,
// finds stored or fails them as told.
type seatRecorder struct {
	mu               sync.Mutex
	inFlight         *inFlight
	attempts         map[string]int
	stored, failing  map[string]bool
	recordedFailures map[string]string
}

func seatName(s activities.SeatInput) string {
	return fmt.Sprintf("%s/%s-%d", s.Corpus.Name, s.Seat.Conversation, s.Seat.Seat)
}

func (r *seatRecorder) play(_ context.Context, s activities.SeatInput) (activities.SeatOutcome, error) {
	name := seatName(s)
	r.inFlight.enter()
	defer r.inFlight.leave()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts[name]++
	if r.failing[name] {
		return activities.SeatOutcome{}, errors.New("send frame 12: the duplex agent at ws://127.0.0.1:1/ sent nothing for 5s of session time")
	}
	return activities.SeatOutcome{Key: "seats/" + name, Played: !r.stored[name]}, nil
}

func (r *seatRecorder) recordFailure(_ context.Context, in activities.FailedSeatInput) (activities.SeatOutcome, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recordedFailures[seatName(in.Seat)] = in.Error
	return activities.SeatOutcome{Key: "seats/" + seatName(in.Seat), Failed: true}, nil
}

// The seats of each corpus: two conversations of two speakers on a, one
// of three on b.
var seatPlans = map[string]activities.SeatPlan{
	"a": {Seats: []activities.SeatRef{{Conversation: "a1", Seat: 1}, {Conversation: "a1", Seat: 2}, {Conversation: "a2", Seat: 1}, {Conversation: "a2", Seat: 2}}, Estimate: 40 * time.Second},
	"b": {Seats: []activities.SeatRef{{Conversation: "b1", Seat: 1}, {Conversation: "b1", Seat: 2}, {Conversation: "b1", Seat: 3}}, Estimate: 30 * time.Second},
}

// Every seat of every corpus is played, at most the agent's concurrency
// at once, then each corpus is evaluated; a seat whose every attempt
// fails is tried SeatAttempts times and recorded as failed with its
// error, and the agent goes on; seats found stored count as resumed.
func TestSeatedWorkflowPlaysEverySeatBounded(t *testing.T) {
	r := &seatRecorder{inFlight: newInFlight(), attempts: map[string]int{}, stored: map[string]bool{"a/a1-1": true}, failing: map[string]bool{"b/b1-2": true},
		recordedFailures: map[string]string{}}
	env, a := newSweepEnv()
	env.RegisterWorkflow(SeatedWorkflow)
	env.OnActivity(a.PlanSeats, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.PlanSeatsInput) (activities.SeatPlan, error) {
		return seatPlans[in.Corpus.Name], nil
	}).Twice()
	env.OnActivity(a.PlaySeat, mock.Anything, mock.Anything).Return(r.play)
	env.OnActivity(a.RecordFailedSeat, mock.Anything, mock.Anything).Return(r.recordFailure).Once()
	var evaluated []string
	env.OnActivity(a.EvaluateSeated, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.EvaluateSeatedInput) (activities.SeatedOutcome, error) {
		evaluated = append(evaluated, in.Corpus.Name)
		return activities.SeatedOutcome{Run: bundle.SeatedRun{Agent: in.Agent.Name, Corpus: in.Corpus.Name}, Key: "seated-evaluations/" + in.Corpus.Name}, nil
	}).Twice()
	s := seatedSpec(2)
	plans := []activities.CorpusPlan{{Name: "a", Prefix: "corpora/a", Hash: "ha", Conversations: []string{"a1", "a2"}}, {Name: "b", Prefix: "corpora/b", Hash: "hb"}}
	in := NewSeatedInput(s, s.Agents[0], plans)
	if in.Corpora[0].Conversations != nil {
		t.Errorf("the corpora travel with their conversations: %+v", in.Corpora[0])
	}
	env.ExecuteWorkflow(SeatedWorkflow, in)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var out SeatedOutcome
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	if out.Name != "bot" || out.Seats != 7 || out.Played != 5 || out.Resumed != 1 || out.Failed != 1 || len(out.Corpora) != 2 {
		t.Errorf("outcome %+v", out)
	}
	if len(r.attempts) != 7 || r.attempts["b/b1-2"] != SeatAttempts || r.attempts["a/a2-1"] != 1 {
		t.Errorf("attempts %v: want every seat once, the failing one %d times", r.attempts, SeatAttempts)
	}
	if most := r.inFlight.mostAtOnce(); most != 2 {
		t.Errorf("%d seats in flight at once, concurrency 2", most)
	}
	if msg := r.recordedFailures["b/b1-2"]; !strings.Contains(msg, "sent nothing for 5s") || len(r.recordedFailures) != 1 {
		t.Errorf("recorded failures %v", r.recordedFailures)
	}
	if strings.Join(evaluated, ",") != "a,b" {
		t.Errorf("evaluated %v, want a then b", evaluated)
	}
	var progress ChildProgress
	if v, err := env.QueryWorkflow(ProgressQuery); err != nil || v.Get(&progress) != nil {
		t.Fatalf("progress query: %v", err)
	}
	if progress != (ChildProgress{Total: 7, Done: 7, Estimate: 70 * time.Second}) {
		t.Errorf("progress %+v", progress)
	}
	env.AssertExpectations(t)
}
