package agent

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/dialogue"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/synth"
)

// Built is one generated scenario: its manifest entry (Files not yet
// set) and its audio.
type Built struct {
	Scenario Scenario
	Audio    ScenarioAudio
}

// Room after the cue turn: after a turn end, enough silence for the
// default entry window and more; after a STOP prompt, room for the agent
// to start answering (the harness sends silence after the tape ends);
// after a holding turn, a moment before the tape ends.
const (
	startTail = 5.0
	stopTail  = 10.0
	holdTail  = 0.3
)

// The stimulus of a STOP trial comes stimulusDelayMin to stimulusDelayMax
// s after the agent is heard to start (uniform, in whole ms): late enough
// that its answer is under way, early enough that it is not yet over.
const (
	stimulusDelayMin = 1.0
	stimulusDelayMax = 2.5
)

// A claim and the claimer's own first sentence are separated by a short
// within-speaker pause (Switchboard's, restricted to this range): the
// interrupter goes straight on, taking the floor.
const (
	claimPauseMin = 0.2
	claimPauseMax = 0.6
)

// mixCeiling is the peak the mix is scaled down to when the participants'
// channels summed would pass it.
const mixCeiling = 0.9

// Random streams of the scenario builder, besides synth's own stages.
const (
	stageSeat     synth.Stage = "agent-seat"
	stageCue      synth.Stage = "agent-cue"
	stageStimulus synth.Stage = "agent-stimulus"
	stageBabble   synth.Stage = "agent-babble"
)

// babbleSentences is how many sentences the agent's seat says into the
// babble material.
const babbleSentences = 3

// Build generates one scenario with synth's stages: a script whose agent
// seat is dropped, a floor plan whose last turn addresses the agent, real
// TTS, the generator's acoustics. Every draw comes from streams seeded by
// (seed, d.ID), so the result depends on nothing else.
func Build(ctx context.Context, seed uint64, d Design, engines map[string]synth.TTS) (Built, error) {
	spec := synth.ConversationSpec{ID: d.ID, Split: dialogue.Test, Type: d.Type, Speakers: d.Speakers, Seconds: d.LeadSeconds,
		Overlap: synth.PresetOverlap()}
	if err := spec.Validate(); err != nil {
		return Built{}, err
	}
	if _, err := ParseCondition(string(d.Condition)); err != nil {
		return Built{}, fmt.Errorf("%s: %w", d.ID, err)
	}
	script := synth.WriteScript(spec, synth.StreamFor(seed, d.ID, synth.StageScript))
	seat := 1 + synth.StreamFor(seed, d.ID, stageSeat).IntN(d.Speakers)
	name := script.Personas[seat-1].Name
	src, err := newSource(seed, spec, name)
	if err != nil {
		return Built{}, err
	}
	plan, err := planLeadIn(seed, d, &script, seat, src)
	if err != nil {
		return Built{}, fmt.Errorf("%s: %w", d.ID, err)
	}
	cast := synth.CastVoices(spec, synth.StreamFor(seed, d.ID, synth.StageVoices))
	r, err := synth.Render(ctx, plan, cast, engines)
	if err != nil {
		return Built{}, err
	}
	tl, err := synth.Assemble(plan, r)
	if err != nil {
		return Built{}, err
	}
	bp, br, err := withBabbleSource(ctx, seed, d.ID, plan, r, seat, cast, src, engines)
	if err != nil {
		return Built{}, err
	}
	if _, err := synth.ApplyAcoustics(&tl, cast, br, bp, synth.StreamFor(seed, d.ID, synth.StageAcoustics)); err != nil {
		return Built{}, err
	}
	b, err := tape(d, script, cast, seat, tl)
	if err != nil {
		return Built{}, fmt.Errorf("%s: %w", d.ID, err)
	}
	switch {
	case d.Condition.MPTB() && d.Condition.Stop():
		st, clip, err := stimulus(ctx, seed, d, spec, b.Scenario.Participants, cast, src, engines)
		if err != nil {
			return Built{}, err
		}
		b.Scenario.Stimulus, b.Audio.Stimulus = &st, clip
	case d.Condition.Stop():
		st, clip, err := sceneStimulus(ctx, seed, d, spec, b.Scenario.Participants, cast, src, engines)
		if err != nil {
			return Built{}, err
		}
		b.Scenario.Stimulus, b.Audio.Stimulus = &st, clip
	case d.Condition == StartDuringBackgroundHold:
		if err := withBackground(ctx, seed, d, spec, cast, src, engines, &b); err != nil {
			return Built{}, err
		}
	}
	return b, nil
}

// planLeadIn writes the floor plan of the lead-in: the script without the
// agent's lines, its last line addressing the agent, the plan without the
// agent's listener tokens and without any over the cue turn (so the cue is
// the only floor event of the trial), and for a hold the cue turn split
// around one hold pause.
func planLeadIn(seed uint64, d Design, script *synth.Script, seat int, src source) (synth.FloorPlan, error) {
	rng := synth.StreamFor(seed, d.ID, stageCue)
	name := script.Personas[seat-1].Name
	lines := leadLines(script.Lines, seat, d.Speakers, src, rng)
	cueLine := &lines[len(lines)-1]
	var before, after []synth.Sentence
	if d.Condition.Hold() {
		before, after = holdSplit(cueLine, name, src, rng)
	} else {
		addressEOT(cueLine, name, src, rng)
	}
	script.Lines = lines
	plan := synth.PlanFloor(*script, synth.StreamFor(seed, d.ID, synth.StageFloor), synth.StreamFor(seed, d.ID, synth.StageOverlap))
	plan, err := withoutOverlays(plan, func(a synth.Act) bool { return a.Speaker == seat })
	if err != nil {
		return synth.FloorPlan{}, err
	}
	cue := lastTurn(plan)
	plan, err = withoutOverlays(plan, func(a synth.Act) bool { return a.Kind != floor.Turn && a.Host == cue })
	if err != nil {
		return synth.FloorPlan{}, err
	}
	plan.Tail = startTail
	switch {
	case d.Condition.Hold():
		a := &plan.Acts[cue]
		a.Segments = []synth.Utterance{utterance(a.Speaker, before), utterance(a.Speaker, after)}
		a.Holds = []float64{truncatedPause(synth.StyleOf(d.Type), holdMin, holdMax, rng)}
		if d.Condition == StartDuringFillerHold {
			fillerHold(a, seed, d.ID, a.Holds[0])
		}
		plan.Tail = holdTail
	case d.Condition.Stop():
		plan.Tail = stopTail
	}
	return plan, nil
}

// withBabbleSource returns the plan and rendering the acoustics stage
// draws babble noise from: the lead-in's, plus a few sentences in the
// voice cast for the agent's seat, which is never heard otherwise. Babble
// on a channel is made of the other speakers' speech, and in a lead-in
// with one participant there is no other speaker's speech without it.
func withBabbleSource(ctx context.Context, seed uint64, id string, plan synth.FloorPlan, r synth.Rendering, seat int,
	cast synth.Cast, src source, engines map[string]synth.TTS) (synth.FloorPlan, synth.Rendering, error) {
	rng := synth.StreamFor(seed, id, stageBabble)
	act := synth.Act{Kind: floor.Turn, Speaker: seat, Follows: -1}
	for range babbleSentences {
		act.Segments = append(act.Segments, synth.Utterance{Speaker: seat, Text: src.statement(rng).Text})
	}
	extra, err := synth.Render(ctx, synth.FloorPlan{Spec: plan.Spec, Acts: []synth.Act{act}}, cast, engines)
	if err != nil {
		return synth.FloorPlan{}, synth.Rendering{}, err
	}
	plan.Acts = append(slices.Clip(plan.Acts), act)
	r.Acts = append(slices.Clip(r.Acts), extra.Acts...)
	return plan, r, nil
}

// tape cuts the assembled conversation into the scenario: the
// participants' channels, their mix, and the cue read off the event log.
func tape(d Design, script synth.Script, cast synth.Cast, seat int, tl synth.Timeline) (Built, error) {
	s := Scenario{
		ID: d.ID, Condition: d.Condition, Speakers: d.Speakers, AgentSeat: seat,
		AgentName: script.Personas[seat-1].Name, InteractionType: d.Type, Topic: script.Topic,
		Samples: len(tl.Channels[0]), Duration: tl.Duration(),
	}
	var a ScenarioAudio
	for k := 1; k <= d.Speakers; k++ {
		if k == seat {
			continue
		}
		s.Participants = append(s.Participants, Participant{Speaker: k, Name: script.Personas[k-1].Name, Voice: cast.Voices[k-1].ID})
		a.Channels = append(a.Channels, tl.Channels[k-1])
	}
	a.Mix, s.MixGain = mix(a.Channels)
	var cue *floor.Event
	for i := range tl.Events {
		if tl.Events[i].Kind == floor.Turn {
			cue = &tl.Events[i]
		}
	}
	s.Prompt, s.Cue, s.ValidUntil = cue.Text, cue.End, s.Duration
	if d.Condition.Hold() {
		want := 1
		if d.Condition == StartDuringFillerHold {
			want = 2 // the gap before the filler, then the pause
		}
		if len(cue.Holds) != want {
			return Built{}, fmt.Errorf("the cue turn has %d holds, want %d", len(cue.Holds), want)
		}
		s.Cue, s.Resume, s.ValidUntil = cue.Holds[0].Start, cue.Holds[want-1].End, cue.End
		if w := DefaultWindows().Entry; s.ValidUntil-s.Cue < w+0.5 {
			return Built{}, fmt.Errorf("the holding speaker goes on for %.2f s after the pause starts, less than the %.1f s entry window", s.ValidUntil-s.Cue, w)
		}
	}
	return Built{Scenario: s, Audio: a}, nil
}

// mix sums the channels, scaled down to mixCeiling if they would pass it,
// and returns the gain used.
func mix(channels [][]float32) ([]float32, float64) {
	out := make([]float32, len(channels[0]))
	for _, ch := range channels {
		audio.AddAt(out, ch, 0, 1)
	}
	gain := 1.0
	if pk := audio.Peak(out); pk > mixCeiling {
		gain = mixCeiling / pk
		audio.Gain(out, gain)
	}
	return out, gain
}

// stimulus draws and renders a STOP scenario's stimulus: who says it, a
// backchannel or a claim followed by the claimer's own first sentence,
// and the delay after the agent's observed onset.
func stimulus(ctx context.Context, seed uint64, d Design, spec synth.ConversationSpec, ps []Participant, cast synth.Cast,
	src source, engines map[string]synth.TTS) (Stimulus, []float32, error) {
	rng := synth.StreamFor(seed, d.ID, stageStimulus)
	who := ps[rng.IntN(len(ps))].Speaker
	st := Stimulus{Kind: StimulusOf(d.Condition), Speaker: who}
	segs := []synth.Utterance{{Speaker: who, Text: src.backchannel(rng)}}
	var pause float64
	if st.Kind == Interruption {
		segs = []synth.Utterance{{Speaker: who, Text: src.claim(rng)}, {Speaker: who, Text: src.statement(rng).Text}}
		pause = truncatedPause(synth.StyleOf(d.Type), claimPauseMin, claimPauseMax, rng)
	}
	st.Delay = math.Round(1000*(stimulusDelayMin+(stimulusDelayMax-stimulusDelayMin)*rng.Float64())) / 1000
	plan := synth.FloorPlan{Spec: spec, Acts: []synth.Act{{Kind: floor.Turn, Speaker: who, Segments: segs, Follows: -1}}}
	r, err := synth.Render(ctx, plan, cast, engines)
	if err != nil {
		return Stimulus{}, nil, err
	}
	clip := join(r.Acts[0].Clips, pause)
	texts := make([]string, len(segs))
	for i, u := range segs {
		texts[i] = u.Text
	}
	st.Text, st.Samples = strings.Join(texts, " "), len(clip)
	return st, clip, nil
}

// join lays clips one after another with pause seconds of silence between.
func join(clips [][]float32, pause float64) []float32 {
	gap := int(math.Round(pause * SampleRate))
	var out []float32
	for i, c := range clips {
		if i > 0 {
			out = append(out, make([]float32, gap)...)
		}
		out = append(out, c...)
	}
	return out
}
