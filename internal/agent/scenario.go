package agent

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/floorbench/floorbench/internal/dialogue"
	"github.com/floorbench/floorbench/internal/digest"
)

// StimulusKind is what a participant says into a STOP trial while the
// agent talks.
type StimulusKind string

// The stimuli of the STOP conditions.
const (
	// Interruption: a participant takes the floor (a claim and the start
	// of their own turn).
	Interruption StimulusKind = "interruption"
	// Backchannel: a participant says a continuer ("mm hm", "right").
	Backchannel StimulusKind = "backchannel"
	// SideTalk: a participant asks another participant something, by name.
	SideTalk StimulusKind = "side-talk"
	// BackgroundSpeech: a radio or TV voice, band-limited, under the
	// conversation (no seat).
	BackgroundSpeech StimulusKind = "background-speech"
	// Vocalisation: a participant's cough, laugh or throat-clearing.
	Vocalisation StimulusKind = "vocalisation"
	// NoiseBurst: a bang or clatter in the room (no seat).
	NoiseBurst StimulusKind = "noise-burst"
)

// StimulusOf is the stimulus of a STOP condition ("" for START ones).
func StimulusOf(c Condition) StimulusKind {
	switch c {
	case StopOnInterruption:
		return Interruption
	case StopOnBackchannel:
		return Backchannel
	case StopOnSideTalk:
		return SideTalk
	case StopOnBackgroundSpeech:
		return BackgroundSpeech
	case StopOnVocalisation:
		return Vocalisation
	case StopOnNoiseBurst:
		return NoiseBurst
	}
	return ""
}

// Seated reports whether a participant makes stimuli of kind k (speaker
// is their seat); background speech and noise bursts come from the room
// (speaker 0).
func (k StimulusKind) Seated() bool { return k != BackgroundSpeech && k != NoiseBurst }

// ParseCondition reads a condition's name.
func ParseCondition(s string) (Condition, error) {
	for _, c := range Conditions {
		if string(c) == s {
			return c, nil
		}
	}
	return "", fmt.Errorf("condition %q (want one of %v)", s, Conditions)
}

// Participant is one of the other people in a scenario's conversation:
// the agent hears their channels.
type Participant struct {
	Speaker int    `json:"speaker"` // seat, from 1; the agent has its own seat
	Name    string `json:"name"`
	Voice   string `json:"voice"`
}

// Stimulus is a STOP trial's stimulus clip: played into the agent's input
// Delay seconds after the harness observes the agent's speech onset, on
// the channel of participant Speaker (0: the room's, for kinds that are
// not Seated) and into the mix at MixGain. Text is what is said, or for a
// sound its name in brackets ("[cough]").
type Stimulus struct {
	Kind    StimulusKind `json:"kind"`
	Speaker int          `json:"speaker"`
	Text    string       `json:"text"`
	Delay   float64      `json:"delay_s"`
	Samples int          `json:"samples"`
	// LevelDB is the clip's speech level relative to the participants'
	// mean speech level (background speech only).
	LevelDB *float64 `json:"level_db,omitempty"`
}

// Background is the radio or TV speech mixed under a
// start-during-background-hold scenario (file background.wav, Samples
// long, starting at Start on the tape), LevelDB relative to the
// participants' mean speech level.
type Background struct {
	Text    string  `json:"text"`
	Voice   string  `json:"voice"`
	Start   float64 `json:"start_s"`
	Samples int     `json:"samples"`
	LevelDB float64 `json:"level_db"`
}

// Duration is the clip's length in seconds.
func (s Stimulus) Duration() float64 { return float64(s.Samples) / SampleRate }

// Scenario is one interactive trial (docs/agents.md#scenarios). Times are
// seconds on the tape, which is also the trial clock: 0 is the first
// sample the agent hears.
type Scenario struct {
	ID              string                   `json:"id"`
	Condition       Condition                `json:"condition"`
	Speakers        int                      `json:"speakers"` // in the conversation, the agent included
	AgentSeat       int                      `json:"agent_seat"`
	AgentName       string                   `json:"agent_name"`
	InteractionType dialogue.InteractionType `json:"interaction_type"`
	Topic           string                   `json:"topic"`
	Participants    []Participant            `json:"participants"` // the others, by seat
	Samples         int                      `json:"samples"`      // of the tape
	Duration        float64                  `json:"duration_s"`
	// MixGain is what the participants' channels were scaled by in the
	// mix (1 unless their sum would clip); a harness mixing the stimulus
	// into the mix scales it the same.
	MixGain float64 `json:"mix_gain"`
	// Cue: START-after-EOT and STOP, the end of the turn that hands the
	// agent the floor; START-during-hold, the start of the hold pause.
	Cue float64 `json:"cue_s"`
	// Resume is when the holding speaker goes on (START-during-hold only).
	Resume float64 `json:"resume_s,omitempty"`
	// ValidUntil ends what a START trial can score: the tape's end, or for
	// a hold the end of the holding turn (after it, entering is right).
	ValidUntil float64 `json:"valid_until_s"`
	// Prompt is the text of the cue turn: it addresses the agent by name.
	Prompt   string    `json:"prompt"`
	Stimulus *Stimulus `json:"stimulus,omitempty"`
	// Background: start-during-background-hold only; the mix holds it.
	Background *Background `json:"background,omitempty"`
	// Files maps every file of the scenario's folder to its sha256.
	Files map[string]string `json:"files"`
}

// Scenario folder files (docs/agents.md#scenarios).
const (
	MixName        = "mix.wav"
	StimulusName   = "stimulus.wav"
	BackgroundName = "background.wav"
)

// ChannelName is the file of the participant in seat k.
func ChannelName(k int) string { return fmt.Sprintf("speaker_%d.wav", k) }

// FileNames lists the files scenario s has, sorted.
func (s *Scenario) FileNames() []string {
	out := []string{MixName}
	for _, p := range s.Participants {
		out = append(out, ChannelName(p.Speaker))
	}
	if s.Stimulus != nil {
		out = append(out, StimulusName)
	}
	if s.Background != nil {
		out = append(out, BackgroundName)
	}
	slices.Sort(out)
	return out
}

// maxStimulusDelay bounds a stimulus delay a reader accepts.
const maxStimulusDelay = 30.0

// Validate checks every field a harness relies on; the error names the
// field and its value.
func (s *Scenario) Validate() error {
	if !dialogue.ValidID(s.ID) {
		return fmt.Errorf("id %q: want lower-case letters, digits, - and _ (it names a folder)", s.ID)
	}
	if err := s.validateCast(); err != nil {
		return fmt.Errorf("%s: %w", s.ID, err)
	}
	if err := s.validateTimes(); err != nil {
		return fmt.Errorf("%s: %w", s.ID, err)
	}
	if err := s.validateStimulus(); err != nil {
		return fmt.Errorf("%s: %w", s.ID, err)
	}
	want := s.FileNames()
	got := make([]string, 0, len(s.Files))
	for name, sum := range s.Files {
		got = append(got, name)
		if !digest.IsSHA256(sum) {
			return fmt.Errorf("%s: files: %s: sha256 %q is not 64 hex digits", s.ID, name, sum)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		return fmt.Errorf("%s: files %v (want exactly %v)", s.ID, got, want)
	}
	return nil
}

func (s *Scenario) validateCast() error {
	if _, err := ParseCondition(string(s.Condition)); err != nil {
		return err
	}
	if s.Speakers < 2 || s.Speakers > 5 {
		return fmt.Errorf("speakers %d (want 2 to 5)", s.Speakers)
	}
	if s.AgentSeat < 1 || s.AgentSeat > s.Speakers {
		return fmt.Errorf("agent_seat %d (want 1 to %d)", s.AgentSeat, s.Speakers)
	}
	if s.AgentName == "" {
		return errors.New("agent_name is empty")
	}
	if _, err := dialogue.ParseInteractionType(string(s.InteractionType)); err != nil {
		return fmt.Errorf("interaction_type: %w", err)
	}
	if len(s.Participants) != s.Speakers-1 {
		return fmt.Errorf("%d participants (want speakers - 1 = %d)", len(s.Participants), s.Speakers-1)
	}
	for i, p := range s.Participants {
		if p.Speaker < 1 || p.Speaker > s.Speakers || p.Speaker == s.AgentSeat {
			return fmt.Errorf("participant %d: speaker %d (want a seat of 1 to %d other than the agent's %d)", i, p.Speaker, s.Speakers, s.AgentSeat)
		}
		if i > 0 && p.Speaker <= s.Participants[i-1].Speaker {
			return fmt.Errorf("participant %d: speaker %d (want seats in increasing order)", i, p.Speaker)
		}
		if p.Name == "" || p.Voice == "" {
			return fmt.Errorf("participant %d: name and voice must not be empty", i)
		}
	}
	return nil
}

func (s *Scenario) validateTimes() error {
	if s.Samples <= 0 || math.Abs(s.Duration-float64(s.Samples)/SampleRate) > 1e-6 {
		return fmt.Errorf("duration_s %g does not match %d samples", s.Duration, s.Samples)
	}
	if !(s.MixGain > 0 && s.MixGain <= 1) {
		return fmt.Errorf("mix_gain %g (want in (0, 1])", s.MixGain)
	}
	if !(s.Cue > 0 && s.Cue < s.Duration) {
		return fmt.Errorf("cue_s %g outside the tape (0 to %g s)", s.Cue, s.Duration)
	}
	if !(s.ValidUntil > s.Cue && s.ValidUntil <= s.Duration) {
		return fmt.Errorf("valid_until_s %g (want after cue_s %g, at most duration_s %g)", s.ValidUntil, s.Cue, s.Duration)
	}
	hold := s.Condition.Hold()
	if hold && !(s.Resume > s.Cue && s.Resume < s.ValidUntil) {
		return fmt.Errorf("resume_s %g (want between cue_s %g and valid_until_s %g)", s.Resume, s.Cue, s.ValidUntil)
	}
	if !hold && s.Resume != 0 {
		return fmt.Errorf("resume_s %g on a %s scenario (only holds resume)", s.Resume, s.Condition)
	}
	if s.Prompt == "" {
		return errors.New("prompt is empty")
	}
	return s.validateBackground()
}

func (s *Scenario) validateBackground() error {
	b := s.Background
	switch {
	case (s.Condition == StartDuringBackgroundHold) != (b != nil):
		return fmt.Errorf("a %s scenario with background %v (only background holds have one)", s.Condition, b != nil)
	case b == nil:
		return nil
	case b.Text == "" || b.Voice == "":
		return errors.New("background text and voice must not be empty")
	case !(b.Start >= 0 && b.Start < s.Cue):
		return fmt.Errorf("background start_s %g (want from 0 to before cue_s %g)", b.Start, s.Cue)
	case b.Samples <= 0 || b.Start+float64(b.Samples)/SampleRate > s.Duration+1e-6:
		return fmt.Errorf("background samples %d from start_s %g (want 1 to the tape's end)", b.Samples, b.Start)
	case !(b.LevelDB >= -60 && b.LevelDB <= 0):
		return fmt.Errorf("background level_db %g (want -60 to 0)", b.LevelDB)
	}
	return nil
}

func (s *Scenario) validateStimulus() error {
	want := StimulusOf(s.Condition)
	st := s.Stimulus
	switch {
	case want == "" && st != nil:
		return fmt.Errorf("a %s scenario has a stimulus", s.Condition)
	case want == "":
		return nil
	case st == nil:
		return fmt.Errorf("a %s scenario needs a stimulus", s.Condition)
	case st.Kind != want:
		return fmt.Errorf("stimulus kind %q (want %q for %s)", st.Kind, want, s.Condition)
	case !st.Kind.Seated() && st.Speaker != 0:
		return fmt.Errorf("stimulus speaker %d (want 0: a %s comes from the room)", st.Speaker, st.Kind)
	case st.Kind.Seated() && !slices.ContainsFunc(s.Participants, func(p Participant) bool { return p.Speaker == st.Speaker }):
		return fmt.Errorf("stimulus speaker %d is not a participant", st.Speaker)
	case st.LevelDB != nil && !(*st.LevelDB >= -60 && *st.LevelDB <= 0):
		return fmt.Errorf("stimulus level_db %g (want -60 to 0)", *st.LevelDB)
	case !(st.Delay > 0 && st.Delay <= maxStimulusDelay):
		return fmt.Errorf("stimulus delay_s %g (want in (0, %g])", st.Delay, maxStimulusDelay)
	case st.Samples <= 0 || st.Samples > int(maxStimulusDelay*SampleRate):
		return fmt.Errorf("stimulus samples %d (want 1 to %d)", st.Samples, int(maxStimulusDelay*SampleRate))
	case st.Text == "":
		return errors.New("stimulus text is empty")
	}
	return nil
}
