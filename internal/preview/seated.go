package preview

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/agent/seated"
	"github.com/floorbench/floorbench/internal/agent/sweepagent"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/synth"
)

// SeatedPreview is a seated agent of a sweep: its sessions on each of
// its corpora, how many the store holds recorded, and how long the rest
// take at its concurrency.
type SeatedPreview struct {
	Name        string                `json:"name"`
	Protocol    string                `json:"protocol"`
	Concurrency int                   `json:"concurrency"`
	Rate        float64               `json:"rate"`
	Corpora     []SeatedCorpusPreview `json:"corpora"`
	Seats       int                   `json:"seats"`
	Recorded    int                   `json:"recorded"`
	// EstimateS is how long the seats not recorded take at most on the
	// wall at the agent's concurrency and rate (seated.Estimate), in
	// seconds; Planned says that a corpus is not generated yet, so its
	// part is estimated from its preset's planned lengths.
	EstimateS float64 `json:"estimate_s"`
	Planned   bool    `json:"estimate_planned,omitempty"`
}

// SeatedCorpusPreview is a seated agent's sessions on one corpus.
type SeatedCorpusPreview struct {
	Corpus   string `json:"corpus"`
	Seats    int    `json:"seats"`
	Recorded int    `json:"recorded"`
	Planned  bool   `json:"planned,omitempty"`
}

// Estimate is EstimateS as a duration.
func (p SeatedPreview) Estimate() time.Duration {
	return time.Duration(p.EstimateS * float64(time.Second))
}

// plannedOverrun is how much longer than its planned main sequence a
// generated conversation is taken to be before it is generated: the
// rendered conversation comes out within a few seconds of its plan
// (synth.ConversationSpec.Seconds).
const plannedOverrun = 5.0

// previewSeated works out, from the store and the corpora's plans alone,
// seated agent a's sessions and their length.
func previewSeated(ctx context.Context, st store.Store, s spec.Sweep, a spec.Agent, plans []activities.CorpusPlan, manifests []*corpus.Manifest) (SeatedPreview, error) {
	p := SeatedPreview{Name: a.Name, Protocol: a.Protocol, Concurrency: a.Concurrency, Rate: a.Rate}
	o := sweepagent.SeatOptions(a)
	var pending []seated.Seat
	for _, name := range a.Seated.Corpora {
		i := slices.IndexFunc(s.Corpora, func(c spec.Corpus) bool { return c.Name == name })
		seats, planned, err := corpusSeats(s.Corpora[i], manifests[i], a)
		if err != nil {
			return p, err
		}
		cp := SeatedCorpusPreview{Corpus: name, Seats: len(seats), Planned: planned}
		for _, seat := range seats {
			done := false
			if !planned {
				if done, err = recordedSeat(ctx, st, sweepagent.SeatKey(a, plans[i].Hash, seat.Conversation.ID, seat.Speaker)); err != nil {
					return p, err
				}
			}
			if done {
				cp.Recorded++
			} else {
				pending = append(pending, seat)
			}
		}
		p.Corpora = append(p.Corpora, cp)
		p.Seats, p.Recorded, p.Planned = p.Seats+cp.Seats, p.Recorded+cp.Recorded, p.Planned || planned
	}
	p.EstimateS = seated.Estimate(pending, o).Seconds()
	return p, nil
}

// corpusSeats are agent a's seats on a corpus: from its manifest, or,
// for a generated corpus not stored yet (m nil), from its preset's plan.
func corpusSeats(c spec.Corpus, m *corpus.Manifest, a spec.Agent) ([]seated.Seat, bool, error) {
	if m != nil {
		return sweepagent.Seats(m, a), false, nil
	}
	preset, err := synth.PresetByName(c.Generate.Preset, c.Generate.Seed)
	if err != nil {
		return nil, false, err
	}
	m = &corpus.Manifest{}
	for _, cs := range preset.Conversations {
		m.Conversations = append(m.Conversations, corpus.Conversation{ID: cs.ID, Speakers: cs.Speakers,
			Samples: int((cs.Seconds + plannedOverrun) * proto.SampleRate)})
	}
	return sweepagent.Seats(m, a), true, nil
}

// recordedSeat reports whether the seat under key is stored played.
func recordedSeat(ctx context.Context, st store.Store, key string) (bool, error) {
	data, err := store.GetBytes(ctx, st, keys.File(key, seated.RecordingName))
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	r, err := seated.ParseRecording(data)
	return err == nil && r.Error == "", nil
}
