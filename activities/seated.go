package activities

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/floorbench/floorbench/internal/agent/seated"
	"github.com/floorbench/floorbench/internal/agent/sweepagent"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
)

// SeatRef is one seat of a corpus: a conversation and the speaker the
// agent stands in for.
type SeatRef struct {
	Conversation string
	Seat         int
}

// PlanSeatsInput asks for a seated agent's seats on one corpus.
type PlanSeatsInput struct {
	Agent  spec.Agent
	Corpus CorpusPlan // by reference
}

// SeatPlan is a seated agent's seats on a corpus and how long playing
// them takes at most on the wall at its concurrency and rate.
type SeatPlan struct {
	Seats    []SeatRef
	Estimate time.Duration
}

// PlanSeats lists the agent's seats on a stored corpus: every speaker the
// spec names (every speaker by default) of every labelled conversation
// (an unlabelled one could not be scored), in manifest order.
func (a *Activities) PlanSeats(ctx context.Context, in PlanSeatsInput) (_ SeatPlan, err error) {
	defer permanent(&err)
	c, _, cleanup, err := a.openStoredCorpus(ctx, in.Corpus)
	if err != nil {
		return SeatPlan{}, err
	}
	defer cleanup()
	seats := sweepagent.Seats(c.Manifest, in.Agent)
	p := SeatPlan{Estimate: seated.Estimate(seats, sweepagent.SeatOptions(in.Agent))}
	for _, s := range seats {
		p.Seats = append(p.Seats, SeatRef{Conversation: s.Conversation.ID, Seat: s.Speaker})
	}
	return p, nil
}

// openStoredCorpus fetches a stored corpus's manifest into a scratch
// folder and opens it; it returns the sha256 of its corpus.json, which
// seated recordings name, and the scratch folder's cleanup.
func (a *Activities) openStoredCorpus(ctx context.Context, plan CorpusPlan) (*corpus.Corpus, string, func(), error) {
	dir, cleanup, err := a.scratch()
	if err != nil {
		return nil, "", nil, err
	}
	path := filepath.Join(dir, "corpus", corpus.ManifestName)
	if err := a.download(ctx, keys.File(plan.Prefix, corpus.ManifestName), path); err != nil {
		cleanup()
		return nil, "", nil, err
	}
	c, err := corpus.Open(filepath.Dir(path), a.limits())
	if err != nil {
		cleanup()
		return nil, "", nil, badInput("corpus %s: %v", plan.Name, err)
	}
	sha, err := digest.FileSHA256(path)
	if err != nil {
		cleanup()
		return nil, "", nil, err
	}
	return c, sha, cleanup, nil
}

// SeatInput asks for one seat's session.
type SeatInput struct {
	Agent  spec.Agent
	Corpus CorpusPlan // by reference
	Seat   SeatRef
}

// SeatOutcome is what became of a seat: its recording's key (a prefix
// holding session.json and output.wav) and whether it was played now,
// found stored, or recorded as failed.
type SeatOutcome struct {
	Key    string
	Played bool
	Failed bool
}

// PlaySeat seats the agent in one conversation in real time (at its
// rate): it streams the other speakers' channels to it and stores what
// was heard from it. A seat stored already, and not failed, is not
// played again. It heartbeats while it plays. A session that fails
// (refused, dropped, malformed, silent past its deadline) is an error
// Temporal retries; RecordFailedSeat stores the seat as failed once the
// retries are spent.
func (a *Activities) PlaySeat(ctx context.Context, in SeatInput) (_ SeatOutcome, err error) {
	defer permanent(&err)
	key := sweepagent.SeatKey(in.Agent, in.Corpus.Hash, in.Seat.Conversation, in.Seat.Seat)
	out := SeatOutcome{Key: key}
	if ok, err := a.seatedAlready(ctx, key); err != nil || ok {
		return out, err
	}
	c, sha, cleanup, err := a.openStoredCorpus(ctx, in.Corpus)
	if err != nil {
		return out, err
	}
	defer cleanup()
	s, err := a.seat(ctx, in.Corpus, c, in.Seat)
	if err != nil {
		return out, err
	}
	o := sweepagent.SeatOptions(in.Agent)
	o.Endpoint.Limits = a.limits()
	if o.Endpoint.Credential, err = a.credential(in.Agent.CredentialEnv); err != nil {
		return out, badInput("agent %s: %v", in.Agent.Name, err)
	}
	stop := keepAlive(ctx, "seated in "+s.Name())
	rec, heard, err := seated.Session(ctx, c, s, o, sha)
	stop()
	if err != nil {
		return out, fmt.Errorf("agent %s, corpus %s, %s seat %d: %w", in.Agent.Name, in.Corpus.Name, s.Conversation.ID, s.Speaker, err)
	}
	out.Played = true
	return out, a.storeSeat(ctx, key, s, rec, heard)
}

// seat finds a seat of an opened stored corpus and fetches the
// conversation's channels next to its manifest.
func (a *Activities) seat(ctx context.Context, plan CorpusPlan, c *corpus.Corpus, ref SeatRef) (seated.Seat, error) {
	conv, err := a.materialise(ctx, plan, c, ref.Conversation)
	if err != nil {
		return seated.Seat{}, err
	}
	if ref.Seat < 1 || ref.Seat > conv.Speakers {
		return seated.Seat{}, badInput("corpus %s: conversation %s has no speaker %d to seat an agent in", plan.Name, conv.ID, ref.Seat)
	}
	return seated.Seat{Conversation: conv, Speaker: ref.Seat}, nil
}

// FailedSeatInput records a seat that failed for good, with its error.
type FailedSeatInput struct {
	Seat  SeatInput
	Error string
}

// RecordFailedSeat stores a seat whose every attempt failed as a
// recording with its error and no audio, so that the bundle names the
// error and a later sweep plays it again.
func (a *Activities) RecordFailedSeat(ctx context.Context, in FailedSeatInput) (_ SeatOutcome, err error) {
	defer permanent(&err)
	t := in.Seat
	out := SeatOutcome{Key: sweepagent.SeatKey(t.Agent, t.Corpus.Hash, t.Seat.Conversation, t.Seat.Seat), Failed: true}
	c, sha, cleanup, err := a.openStoredCorpus(ctx, t.Corpus)
	if err != nil {
		return out, err
	}
	defer cleanup()
	i := slices.IndexFunc(c.Manifest.Conversations, func(e corpus.Conversation) bool { return e.ID == t.Seat.Conversation })
	if i < 0 {
		return out, badInput("corpus %s has no conversation %q", t.Corpus.Name, t.Seat.Conversation)
	}
	s := seated.Seat{Conversation: c.Manifest.Conversations[i], Speaker: t.Seat.Seat}
	return out, a.storeSeat(ctx, out.Key, s, seated.FailedRecording(s, sweepagent.SeatOptions(t.Agent), sha, in.Error), nil)
}

// seatedAlready reports whether key holds a recording of a seat that was
// played (a failed one is played again).
func (a *Activities) seatedAlready(ctx context.Context, key string) (bool, error) {
	r, err := a.readSeat(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return r.Error == "", nil
}

// readSeat reads and checks a stored seat's session.json.
func (a *Activities) readSeat(ctx context.Context, key string) (*seated.Recording, error) {
	rk := keys.File(key, seated.RecordingName)
	data, err := store.GetBytes(ctx, a.Store, rk)
	if err != nil {
		return nil, err
	}
	r, err := seated.ParseRecording(data)
	if err != nil {
		return nil, corrupt(rk, err)
	}
	return r, nil
}

// storeSeat writes a seat's recording into a scratch folder (which checks
// it) and stores its files under key, session.json last: its presence
// means the seat is stored whole.
func (a *Activities) storeSeat(ctx context.Context, key string, s seated.Seat, rec *seated.Recording, heard []float32) error {
	dir, cleanup, err := a.scratch()
	if err != nil {
		return err
	}
	defer cleanup()
	if err := seated.WriteRecording(dir, s.Name(), rec, heard); err != nil {
		return err
	}
	folder := filepath.Join(dir, s.Name())
	if heard != nil {
		if err := putFile(ctx, a.Store, keys.File(key, seated.OutputName), filepath.Join(folder, seated.OutputName)); err != nil {
			return err
		}
	}
	return putFile(ctx, a.Store, keys.File(key, seated.RecordingName), filepath.Join(folder, seated.RecordingName))
}
