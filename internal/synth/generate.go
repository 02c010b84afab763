package synth

import (
	"context"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/floor"
)

// Conversation is one generated conversation: the five stages' results
// that go into a corpus.
type Conversation struct {
	Spec      ConversationSpec
	Topic     string
	Cast      Cast
	Acoustics []ChannelAcoustics
	Channels  [][]float32 // 16 kHz, one per speaker, equal lengths, in [-1, 1]
	Events    []floor.Event
}

// Duration is the conversation's length in seconds.
func (c Conversation) Duration() float64 { return float64(len(c.Channels[0])) / audio.Rate }

// Generate runs the five stages for one conversation. Every draw comes
// from streams seeded by (seed, spec.ID), so the result depends on nothing
// else: not on order, not on what ran in parallel.
func Generate(ctx context.Context, seed uint64, spec ConversationSpec, engines map[string]TTS) (Conversation, error) {
	if err := spec.Validate(); err != nil {
		return Conversation{}, err
	}
	script := WriteScript(spec, StreamFor(seed, spec.ID, StageScript))
	plan := PlanFloor(script, StreamFor(seed, spec.ID, StageFloor))
	cast := CastVoices(spec, StreamFor(seed, spec.ID, StageVoices))
	r, err := Render(ctx, plan, cast, engines)
	if err != nil {
		return Conversation{}, err
	}
	tl, err := Assemble(plan, r)
	if err != nil {
		return Conversation{}, err
	}
	ac, err := ApplyAcoustics(&tl, cast, r, plan, StreamFor(seed, spec.ID, StageAcoustics))
	if err != nil {
		return Conversation{}, err
	}
	return Conversation{Spec: spec, Topic: script.Topic, Cast: cast, Acoustics: ac, Channels: tl.Channels, Events: tl.Events}, nil
}
