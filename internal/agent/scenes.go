package agent

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/dialogue"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/synth"
)

// The scenes beyond MPTB's four conditions (docs/agents.md#scenes) draw
// from streams of their own, so that adding them moved no byte of the
// MPTB conditions' scenarios.
const (
	stageScene      synth.Stage = "agent-scene"
	stageSceneVoice synth.Stage = "agent-scene-voice"
)

// Levels of the room's sounds, relative to the participants' mean speech
// level (dB): a radio or TV under the conversation 10 dB down, a bang as
// loud as the speech.
const (
	backgroundLevelDB = -10.0
	noiseBurstLevelDB = 0.0
)

// A background hold's radio starts backgroundLead s before the pause and
// runs on backgroundTail s after the holding speaker resumes.
const (
	backgroundLead = 1.0
	backgroundTail = 0.5
)

// fillers are what a filler hold's speaker says before the pause; the
// gap between the addressing sentence and the filler is drawn from
// [fillerGapMin, fillerGapMax] s.
var fillers = []string{"um", "uh"}

const (
	fillerGapMin = 0.1
	fillerGapMax = 0.3
)

// radioSentences bounds the sentences rendered for a radio clip.
const radioSentences = 12

// speechGap is the silence between a radio's sentences.
const speechGap = 0.15

// meanLevel is the participants' mean speech RMS (linear), the reference
// of the room's sounds.
func meanLevel(cast synth.Cast, ps []Participant) float64 {
	s := 0.0
	for _, p := range ps {
		s += cast.Levels[p.Speaker-1]
	}
	return s / float64(len(ps))
}

// fillerHold makes the cue act of a filler hold: the addressing stretch,
// a short gap, a filler, then the drawn hold pause before the rest.
func fillerHold(a *synth.Act, seed uint64, id string, pause float64) {
	rng := synth.StreamFor(seed, id, stageScene)
	filler := synth.Utterance{Speaker: a.Speaker, Text: fillers[rng.IntN(len(fillers))]}
	a.Segments = []synth.Utterance{a.Segments[0], filler, a.Segments[1]}
	gap := math.Round(1000*uniform(rng, fillerGapMin, fillerGapMax)) / 1000
	a.Holds = []float64{gap, pause}
}

// sceneStimulus draws and synthesises the stimulus of a scene's STOP
// trial, with the delay drawn as MPTB's conditions draw theirs.
func sceneStimulus(ctx context.Context, seed uint64, d Design, spec synth.ConversationSpec, ps []Participant, cast synth.Cast,
	src source, engines map[string]synth.TTS) (Stimulus, []float32, error) {
	rng := synth.StreamFor(seed, d.ID, stageScene)
	st := Stimulus{Kind: StimulusOf(d.Condition)}
	st.Delay = math.Round(1000*(stimulusDelayMin+(stimulusDelayMax-stimulusDelayMin)*rng.Float64())) / 1000
	var clip []float32
	var err error
	switch st.Kind {
	case SideTalk:
		if len(ps) < 2 {
			return Stimulus{}, nil, fmt.Errorf("%s: side talk needs two participants besides the agent (speakers %d)", d.ID, d.Speakers)
		}
		perm := rng.Perm(len(ps))
		from, to := ps[perm[0]], ps[perm[1]]
		st.Speaker, st.Text = from.Speaker, addressed(src.question(rng), to.Name).Text
		plan := synth.FloorPlan{Spec: spec, Acts: []synth.Act{{Kind: floor.Turn, Speaker: from.Speaker,
			Segments: []synth.Utterance{{Speaker: from.Speaker, Text: st.Text, Question: true}}, Follows: -1}}}
		var r synth.Rendering
		if r, err = synth.Render(ctx, plan, cast, engines); err == nil {
			clip = r.Acts[0].Clips[0]
		}
	case BackgroundSpeech:
		level := backgroundLevelDB
		st.LevelDB = &level
		var texts []string
		texts, clip, err = radioClip(ctx, seed, d.ID, spec, cast, src, engines, 2*SampleRate, rng)
		st.Text = strings.Join(texts, " ")
		clip = levelTo(clip, meanLevel(cast, ps)*audio.FromDB(level))
	case Vocalisation:
		who := ps[rng.IntN(len(ps))].Speaker
		name, s := vocalise(rng)
		st.Speaker, st.Text, clip = who, "["+name+"]", levelTo(s, cast.Levels[who-1])
	case NoiseBurst:
		level := noiseBurstLevelDB
		st.LevelDB, st.Text = &level, "[noise burst]"
		clip = levelTo(noiseBurst(rng), meanLevel(cast, ps)*audio.FromDB(level))
	}
	if err != nil {
		return Stimulus{}, nil, err
	}
	st.Samples = len(clip)
	return st, clip, nil
}

// radioVoice draws the voice of a radio: one of the test pool's voices
// that no participant (and not the agent's seat) has.
func radioVoice(seed uint64, id string, cast synth.Cast) synth.Voice {
	var pool []synth.Voice
	for _, v := range synth.VoicePool(dialogue.Test) {
		if !slices.ContainsFunc(cast.Voices, func(c synth.Voice) bool { return c.ID == v.ID }) {
			pool = append(pool, v)
		}
	}
	return pool[synth.StreamFor(seed, id, stageSceneVoice).IntN(len(pool))]
}

// radioClip renders source statements in a radio voice, band-limited,
// until at least least samples are said (at most radioSentences): the
// texts said and the clip, not yet levelled.
func radioClip(ctx context.Context, seed uint64, id string, spec synth.ConversationSpec, cast synth.Cast, src source,
	engines map[string]synth.TTS, least int, rng *rand.Rand) ([]string, []float32, error) {
	v := radioVoice(seed, id, cast)
	one := synth.Cast{Voices: []synth.Voice{v}, Levels: []float64{audio.FromDB(-20)}}
	var texts []string
	var clips [][]float32
	n := 0
	for len(texts) < radioSentences && n < least {
		text := src.statement(rng).Text
		plan := synth.FloorPlan{Spec: spec, Acts: []synth.Act{{Kind: floor.Turn, Speaker: 1,
			Segments: []synth.Utterance{{Speaker: 1, Text: text}}, Follows: -1}}}
		r, err := synth.Render(ctx, plan, one, engines)
		if err != nil {
			return nil, nil, err
		}
		if len(texts) > 0 {
			n += seconds(speechGap)
		}
		texts, clips = append(texts, text), append(clips, r.Acts[0].Clips[0])
		n += len(r.Acts[0].Clips[0])
	}
	return texts, radio(join(clips, speechGap)), nil
}

// withBackground puts a radio under a background hold: from
// backgroundLead s before the pause to backgroundTail s after the
// resumption, backgroundLevelDB under the participants, in the mix (not
// in any participant's channel), which is scaled again if it would clip.
func withBackground(ctx context.Context, seed uint64, d Design, spec synth.ConversationSpec, cast synth.Cast, src source,
	engines map[string]synth.TTS, b *Built) error {
	s := &b.Scenario
	start := s.Cue - backgroundLead
	n := seconds(s.Resume + backgroundTail - start)
	rng := synth.StreamFor(seed, d.ID, stageScene)
	texts, clip, err := radioClip(ctx, seed, d.ID, spec, cast, src, engines, n, rng)
	if err != nil {
		return err
	}
	if len(clip) < n {
		return fmt.Errorf("%s: %d radio sentences last %.2f s, less than the %.2f s to cover", d.ID, len(texts),
			float64(len(clip))/SampleRate, float64(n)/SampleRate)
	}
	clip = fade(levelTo(clip[:n], meanLevel(cast, s.Participants)*audio.FromDB(backgroundLevelDB)))
	at := seconds(start)
	s.Background = &Background{Text: strings.Join(texts, " "), Voice: radioVoice(seed, d.ID, cast).ID,
		Start: float64(at) / SampleRate, Samples: len(clip), LevelDB: backgroundLevelDB}
	b.Audio.Background = clip
	bed := make([]float32, s.Samples)
	audio.AddAt(bed, clip, at, 1)
	b.Audio.Mix, s.MixGain = mix(append(slices.Clip(b.Audio.Channels), bed))
	return nil
}
