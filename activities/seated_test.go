package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/agent/refagent"
	"github.com/floorbench/floorbench/internal/agent/seated"
	"github.com/floorbench/floorbench/internal/agent/sweepagent"
	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/spec"
)

// seatedAgent is a seated agent of a parsed sweep spec at url, seated as
// speaker 1 of every labelled conversation.
func seatedAgent(t *testing.T, url string) spec.Agent {
	t.Helper()
	s, err := spec.Parse("seated.yaml", []byte(fmt.Sprintf(`name: seated
corpora:
  - {name: small, path: /data/small}
systems:
  - {name: rms, builtin: rms}
agents:
  - name: seated-duplex
    protocol: duplex
    endpoint: %s
    rate: %d
    concurrency: 1
    seated: {speakers: [1], tail_s: 1}
`, url, agentRate)), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	return s.Agents[0]
}

// A seated agent through the activities on a stored corpus: its seats
// are planned, a seat is played once, a seat that failed for good leaves
// the agent unranked with the error named and is played again by a later
// sweep, and once every seat is stored the evaluation is stored once.
func TestSeatedAgentPlaysEachSeatOnceAndEvaluates(t *testing.T) {
	ctx := context.Background()
	a, rec, _ := recording(t)
	plan, err := a.IngestLocal(ctx, IngestInput{Name: "small", Dir: fixtureCorpus(t, auditfixture.Small(), 1)})
	if err != nil {
		t.Fatal(err)
	}
	ag := seatedAgent(t, serveRefAgent(t, refagent.NeverYield))
	rec.take()

	seats, err := a.PlanSeats(ctx, PlanSeatsInput{Agent: ag, Corpus: plan})
	if err != nil {
		t.Fatal(err)
	}
	want := []SeatRef{{Conversation: "audit-00", Seat: 1}, {Conversation: "audit-01", Seat: 1}}
	if fmt.Sprint(seats.Seats) != fmt.Sprint(want) || seats.Estimate <= 0 {
		t.Fatalf("seats: %+v, want %v", seats, want)
	}
	first := SeatInput{Agent: ag, Corpus: plan, Seat: seats.Seats[0]}
	out, err := a.PlaySeat(ctx, first)
	if err != nil || !out.Played || out.Key != sweepagent.SeatKey(ag, plan.Hash, "audit-00", 1) {
		t.Fatalf("first seat: %+v, %v", out, err)
	}
	if puts := rec.take(); len(puts) != 2 || puts[1] != keys.File(out.Key, seated.RecordingName) {
		t.Errorf("a seat stores what was heard, then its session last: %v", puts)
	}
	if again, err := a.PlaySeat(ctx, first); err != nil || again.Played {
		t.Errorf("a stored seat was played again: %+v, %v", again, err)
	}
	second := SeatInput{Agent: ag, Corpus: plan, Seat: seats.Seats[1]}
	failed, err := a.RecordFailedSeat(ctx, FailedSeatInput{Seat: second, Error: "session refused: " + strings.Repeat("x", 400)})
	if err != nil || !failed.Failed {
		t.Fatalf("record failed: %+v, %v", failed, err)
	}

	in := EvaluateSeatedInput{Agent: ag, Corpus: plan, Params: score.DefaultParams(), Resamples: 50, Seed: 1}
	unranked, err := a.EvaluateSeated(ctx, in)
	if err != nil || unranked.Key != "" || len(unranked.Run.Failed) != 1 || unranked.Run.Failed[0].Conversation != "audit-01" || unranked.Run.Failed[0].Error != ("session refused: " + strings.Repeat("x", 400))[:maxSeatError]+"…" {
		t.Fatalf("with a failed seat: %+v, %v", unranked, err)
	}

	if again, err := a.PlaySeat(ctx, second); err != nil || !again.Played {
		t.Fatalf("a failed seat is played again: %+v, %v", again, err)
	}
	rec.take()
	ranked, err := a.EvaluateSeated(ctx, in)
	if err != nil || ranked.Key != SeatedEvaluationKey(in) || len(ranked.Run.Failed) != 0 || ranked.Run.Seats != 2 {
		t.Fatalf("every seat stored: %+v, %v", ranked, err)
	}
	var e evaluate.Evaluation
	if err := json.Unmarshal([]byte(stored(t, a.Store, ranked.Key)), &e); err != nil {
		t.Fatal(err)
	}
	if puts := rec.take(); len(puts) != 1 || puts[0] != ranked.Key {
		t.Errorf("the evaluation stores itself alone: %v", puts)
	}
	if again, err := a.EvaluateSeated(ctx, in); err != nil || again.Key != ranked.Key || len(rec.take()) != 0 {
		t.Errorf("evaluated again: %+v, %v", again, err)
	}
}

// A seat the corpus does not have, or parameters out of range or over
// the worker's limits, are bad input named in the error.
func TestSeatedActivitiesRefuseBadInput(t *testing.T) {
	ctx := context.Background()
	a, _, local := recording(t)
	plan, err := a.IngestLocal(ctx, IngestInput{Name: "small", Dir: fixtureCorpus(t, auditfixture.Small(), 1)})
	if err != nil {
		t.Fatal(err)
	}
	ag := seatedAgent(t, "ws://127.0.0.1:1/")
	_, err = a.PlaySeat(ctx, SeatInput{Agent: ag, Corpus: plan, Seat: SeatRef{Conversation: "audit-00", Seat: 3}})
	assertBadInput(t, "a speaker the conversation lacks", err, "conversation audit-00 has no speaker 3")
	_, err = a.RecordFailedSeat(ctx, FailedSeatInput{Seat: SeatInput{Agent: ag, Corpus: plan, Seat: SeatRef{Conversation: "nope", Seat: 1}}})
	assertBadInput(t, "a conversation the corpus lacks", err, `corpus small has no conversation "nope"`)

	in := EvaluateSeatedInput{Agent: ag, Corpus: plan, Params: score.DefaultParams()}
	in.Params.TauMax = -1
	_, err = a.EvaluateSeated(ctx, in)
	assertBadInput(t, "a negative window", err, "seated agent seated-duplex: protocol parameter tau_max_s")
	in.Params = score.DefaultParams()
	strict := limits.Default()
	strict.Quantiles = 10
	_, err = (&Activities{Store: local, Limits: strict}).EvaluateSeated(ctx, in)
	assertBadInput(t, "quantiles over the worker's limit", err, "n_quantiles: 512 is over the limit of 10")
}
