package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/agent/seated"
	"github.com/floorbench/floorbench/internal/agent/sweepagent"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
)

// EvaluateSeatedInput asks for a seated agent's evaluation on a corpus
// from its stored seats (PlanSeats' seats, each played or failed).
type EvaluateSeatedInput struct {
	Agent     spec.Agent
	Corpus    CorpusPlan // by reference
	Params    score.Params
	Resamples int
	Seed      uint64
}

// SeatedOutcome is a seated agent on one corpus: what the bundle says of
// it, and the key of its stored evaluation ("" when a seat failed: its
// predictions would miss that seat's, so it is not ranked).
type SeatedOutcome struct {
	Run bundle.SeatedRun
	Key string
}

// seatedPredictionParams are how a sweep reads predictions off a seated
// agent's audio: the scorer's VAD and the sweep's refractory.
func seatedPredictionParams(p score.Params) seated.Params {
	sp := seated.DefaultParams()
	sp.Refractory = p.Refractory
	return sp
}

// SeatedEvaluationKey is where the seated agent's evaluation of in is
// stored: the agent's identity and name (the bundle names it), the
// corpus, its seats, how they were played, and how they are scored.
func SeatedEvaluationKey(in EvaluateSeatedInput) string {
	a := in.Agent
	return keys.SeatedEvaluation(sweepagent.Hash(a), in.Corpus.Hash, struct {
		Name      string
		Seated    *spec.Seated
		Play      string
		Scoring   int
		Predict   seated.Params
		Protocol  score.Params
		Resamples int
		Seed      uint64
	}{a.Name, a.Seated, sweepagent.SeatPlayHash(a), score.ProtocolVersion, seatedPredictionParams(in.Params), in.Params, in.Resamples, in.Seed})
}

// maxSeatError bounds a failed seat's error as a bundle carries it.
const maxSeatError = 300

// EvaluateSeated reads every stored seat of the agent on the corpus,
// derives its predictions from what was heard from it (seated.Predict: no
// agent is contacted), scores them by the protocol (evaluate.Seated)
// and stores the evaluation unless stored already. A seat that failed for
// good leaves the agent unranked on the corpus, its error in the outcome.
func (a *Activities) EvaluateSeated(ctx context.Context, in EvaluateSeatedInput) (_ SeatedOutcome, err error) {
	defer permanent(&err)
	out := SeatedOutcome{Run: bundle.SeatedRun{Agent: in.Agent.Name, Protocol: in.Agent.Protocol, Corpus: in.Corpus.Name,
		OperatingPoint: seated.OperatingPoint, Failed: []bundle.SeatFailure{}}}
	if err := in.Params.Validate(a.limits()); err != nil {
		return out, badInput("seated agent %s: %v", in.Agent.Name, err)
	}
	defer keepAlive(ctx, "evaluating seated agent "+in.Agent.Name)()
	c, _, cleanup, err := a.openStoredCorpus(ctx, in.Corpus)
	if err != nil {
		return out, err
	}
	defer cleanup()
	seats := sweepagent.Seats(c.Manifest, in.Agent)
	out.Run.Seats = len(seats)
	recs := make([]*seated.Recording, len(seats))
	for i, s := range seats {
		if recs[i], err = a.readSeat(ctx, sweepagent.SeatKey(in.Agent, in.Corpus.Hash, s.Conversation.ID, s.Speaker)); err != nil {
			return out, fmt.Errorf("seated agent %s, %s seat %d: %w", in.Agent.Name, s.Conversation.ID, s.Speaker, err)
		}
		if recs[i].Error != "" {
			out.Run.Failed = append(out.Run.Failed, bundle.SeatFailure{Conversation: s.Conversation.ID, Seat: s.Speaker, Error: cutError(recs[i].Error)})
		}
	}
	if len(out.Run.Failed) > 0 {
		return out, nil
	}
	key := SeatedEvaluationKey(in)
	if done, err := store.Exists(ctx, a.Store, key); err != nil || done {
		out.Key = key
		return out, err
	}
	sessions := filepath.Join(c.Dir, "out")
	for i, s := range seats {
		if err := a.fetchSeat(ctx, sweepagent.SeatKey(in.Agent, in.Corpus.Hash, s.Conversation.ID, s.Speaker), recs[i], filepath.Join(sessions, seated.SessionsDir, s.Name())); err != nil {
			return out, err
		}
	}
	e, err := a.seatedEvaluation(ctx, in, c, seats, sessions)
	if err != nil {
		return out, err
	}
	data, err := json.Marshal(e)
	if err != nil {
		return out, err
	}
	out.Key = key
	return out, store.PutBytes(ctx, a.Store, key, data)
}

// fetchSeat copies a stored seat's session.json and output.wav (checked
// against the recording r read from it) into dir.
func (a *Activities) fetchSeat(ctx context.Context, key string, r *seated.Recording, dir string) error {
	if err := a.download(ctx, keys.File(key, seated.RecordingName), filepath.Join(dir, seated.RecordingName)); err != nil {
		return err
	}
	ok := keys.File(key, seated.OutputName)
	if err := a.fetchVerified(ctx, ok, r.Files[seated.OutputName], int64(r.Samples)*2+1024, filepath.Join(dir, seated.OutputName)); err != nil {
		return err
	}
	heartbeat(ctx, "reading seats")
	return nil
}

// seatedEvaluation derives the agent's predictions per split from the
// seats fetched under sessions and scores them.
func (a *Activities) seatedEvaluation(ctx context.Context, in EvaluateSeatedInput, c *corpus.Corpus, seats []seated.Seat, sessions string) (*evaluate.Evaluation, error) {
	bc, err := a.LoadCorpus(ctx, in.Corpus)
	if err != nil {
		return nil, err
	}
	for _, id := range seatedConversations(seats) {
		if _, err := a.materialise(ctx, in.Corpus, c, id); err != nil {
			return nil, err
		}
	}
	p := seatedPredictionParams(in.Params)
	subs := map[string]*score.Submission{}
	for _, split := range []string{"dev", "test"} {
		var convs []corpus.Conversation
		for _, conv := range c.Manifest.Conversations {
			if conv.Split == split && !conv.Unlabelled {
				convs = append(convs, conv)
			}
		}
		if subs[split], err = seated.Predict(ctx, c, convs, seats, sessions, p); err != nil {
			return nil, badInput("seated agent %s on %s: %v", in.Agent.Name, in.Corpus.Name, err)
		}
	}
	e, err := evaluate.Seated(&evaluate.SeatedInput{System: in.Agent.Name, SystemHash: sweepagent.Hash(in.Agent), Corpus: bc,
		Dev: subs["dev"], Test: subs["test"], OperatingPoint: seated.OperatingPoint, Params: in.Params, Resamples: in.Resamples, Seed: in.Seed})
	if err != nil {
		return nil, badInput("%v", err)
	}
	return e, nil
}

// seatedConversations are the seats' conversations, once each, in order.
func seatedConversations(seats []seated.Seat) []string {
	var out []string
	for _, s := range seats {
		if n := len(out); n == 0 || out[n-1] != s.Conversation.ID {
			out = append(out, s.Conversation.ID)
		}
	}
	return out
}

// cutError is a failed seat's error as a bundle carries it.
func cutError(s string) string {
	if len(s) <= maxSeatError {
		return s
	}
	return s[:maxSeatError] + "…"
}
