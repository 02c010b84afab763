package detect

import (
	"fmt"
	"math"
)

// FloorMapping turns per-speaker voice activity on the output grid into EOT
// and INT score tracks: activity[k][i] is speaker k's activity on frame i,
// and frame i's scores use frames 0..i only. Gate and Endpointer are the two
// mappings; the package documentation says what each score means. Apply
// maps whole tracks; Start steps the same rule frame by frame, as a stream
// does, and Apply is that loop.
type FloorMapping interface {
	Apply(activity [][]float64, fps float64) (eot, intr [][]float64)
	Start(speakers int, fps float64) FloorState
}

// FloorState is a floor mapping part way through a conversation.
type FloorState interface {
	// Step scores the next frame: activity[k] is speaker k's activity on
	// it, and Step writes speaker k's scores to eot[k] and intr[k].
	Step(activity, eot, intr []float64)
}

// applySteps steps st over whole activity tracks: every mapping's Apply.
func applySteps(st FloorState, activity [][]float64) (eot, intr [][]float64) {
	n := len(activity)
	eot, intr = newTracks(n, frameCountOf(activity))
	a, e, in := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range frameCountOf(activity) {
		for k := range activity {
			a[k] = activity[k][i]
		}
		st.Step(a, e, in)
		for k := range activity {
			eot[k][i], intr[k][i] = e[k], in[k]
		}
	}
	return eot, intr
}

// The floor rules a system's floor_rule parameter chooses between.
const (
	RuleGate       = "gate"
	RuleEndpointer = "endpointer"
)

// Hysteresis decides when a speaker speaks: from the frame whose activity
// reaches SpeechThreshold to the frame whose activity falls below
// SilenceThreshold.
type Hysteresis struct {
	SpeechThreshold  float64
	SilenceThreshold float64
}

func (h Hysteresis) check() error {
	if !(h.SilenceThreshold >= 0 && h.SilenceThreshold <= h.SpeechThreshold && h.SpeechThreshold <= 1) {
		return fmt.Errorf("need 0 <= silence_threshold (%v) <= speech_threshold (%v) <= 1", h.SilenceThreshold, h.SpeechThreshold)
	}
	return nil
}

// voice is one speaker's speech state while a mapping walks the grid.
type voice struct {
	speaking    bool
	onset       int // first frame of the current or last speech run
	silentSince int // first frame of the current silence
	lastSpoke   int // last frame spent speaking; -1 before any speech
}

func newVoices(n int) []voice {
	v := make([]voice, n)
	for k := range v {
		v[k].lastSpoke = -1
	}
	return v
}

// hear moves the voice to frame i, whose activity is a, and reports whether
// a speech run began or ended there.
func (v *voice) hear(h Hysteresis, a float64, i int) (began, ended bool) {
	switch {
	case !v.speaking && a >= h.SpeechThreshold:
		v.speaking, v.onset, began = true, i, true
	case v.speaking && a < h.SilenceThreshold:
		v.speaking, v.silentSince, ended = false, i, true
	}
	if v.speaking {
		v.lastSpoke = i
	}
	return began, ended
}

// othersSpokeSince reports whether a speaker other than k spoke on frame
// from or later.
func othersSpokeSince(voices []voice, k, from int) bool {
	for m, v := range voices {
		if m != k && v.lastSpoke >= 0 && v.lastSpoke >= from {
			return true
		}
	}
	return false
}

// newTracks allocates zeroed EOT and INT tracks of frames frames for each
// of n speakers.
func newTracks(n, frames int) (eot, intr [][]float64) {
	eot, intr = make([][]float64, n), make([][]float64, n)
	for k := range n {
		eot[k], intr[k] = make([]float64, frames), make([]float64, frames)
	}
	return eot, intr
}

func frameCountOf(activity [][]float64) int {
	if len(activity) == 0 {
		return 0
	}
	return len(activity[0])
}

// Gate is the instantaneous rule both papers ran their acoustic baselines
// with: the detector's speech decision, frame by frame. EOT is 1 on a
// speaker's channel while that speaker, having spoken, is silent; INT is 1
// while the speaker speaks and another speaker speaks or spoke within
// INTGateLookback (whenever the speaker speaks, with INTGate false). The
// decision is the activity through Hysteresis (speech from
// speech_threshold, silence below silence_threshold), so a gate fires on
// every flip: in a hold as readily as at a turn end, on a backchannel as
// readily as on a claim. Scores are the decision, not the posterior: a
// recurrent model's posterior (Silero's) decays over a second or more after
// speech, and a threshold near 1 on 1 − p would make the gate a hidden
// silence timeout, which is what the endpointer families are for.
type Gate struct {
	Hysteresis
	INTGate         bool
	INTGateLookback float64 // seconds
}

func (g Gate) check() error {
	if err := g.Hysteresis.check(); err != nil {
		return err
	}
	if !(g.INTGateLookback >= 0) {
		return fmt.Errorf("int_gate_lookback_s must be >= 0")
	}
	return nil
}

// Apply derives the EOT and INT tracks; frame i's scores use frames 0..i.
func (g Gate) Apply(activity [][]float64, fps float64) (eot, intr [][]float64) {
	return applySteps(g.Start(len(activity), fps), activity)
}

// Start begins a conversation of the given number of speakers.
func (g Gate) Start(speakers int, fps float64) FloorState {
	return &gateState{gate: g, voices: newVoices(speakers), lookback: int(math.Round(g.INTGateLookback * fps))}
}

// gateState is a Gate part way through a conversation; frame is the next
// frame's index.
type gateState struct {
	gate            Gate
	voices          []voice
	lookback, frame int
}

func (s *gateState) Step(activity, eot, intr []float64) {
	i := s.frame
	s.frame++
	// Every speaker hears the frame first, so that the INT gate sees the
	// other speakers' state on this frame.
	for k := range s.voices {
		s.voices[k].hear(s.gate.Hysteresis, activity[k], i)
	}
	for k, v := range s.voices {
		eot[k], intr[k] = 0, 0
		switch {
		case !v.speaking && v.lastSpoke >= 0:
			eot[k] = 1
		case v.speaking && (!s.gate.INTGate || othersSpokeSince(s.voices, k, i-s.lookback)):
			intr[k] = 1
		}
	}
}

// Endpointer is the silence-timeout rule: EOT rises over EOTRamp of silence
// after a speech run of at least EOTMinSpeech, INT over INTRamp of a speech
// run that began while another speaker spoke (within INTGateLookback), so
// that a threshold θ fires after θ·EOTRamp of silence or θ·INTRamp of
// overlapping speech.
type Endpointer struct {
	Hysteresis
	EOTMinSpeech    float64 // seconds
	EOTRamp         float64 // seconds
	INTRamp         float64 // seconds
	INTGate         bool
	INTGateLookback float64 // seconds
}

func (e Endpointer) check() error {
	switch err := e.Hysteresis.check(); {
	case err != nil:
		return err
	case !(e.EOTRamp > 0) || !(e.INTRamp > 0):
		return fmt.Errorf("eot_ramp_s and int_ramp_s must be > 0")
	case !(e.EOTMinSpeech >= 0) || !(e.INTGateLookback >= 0):
		return fmt.Errorf("eot_min_speech_s and int_gate_lookback_s must be >= 0")
	}
	return nil
}

// Apply derives the EOT and INT tracks; frame i's scores use frames 0..i.
func (e Endpointer) Apply(activity [][]float64, fps float64) (eot, intr [][]float64) {
	return applySteps(e.Start(len(activity), fps), activity)
}

// Start begins a conversation of the given number of speakers.
func (e Endpointer) Start(speakers int, fps float64) FloorState {
	return &endpointerState{
		rule: e, fps: fps, voices: newVoices(speakers),
		armed: make([]bool, speakers), claim: make([]bool, speakers), began: make([]bool, speakers),
		lookback: int(math.Round(e.INTGateLookback * fps)), minSpeech: e.EOTMinSpeech * fps,
	}
}

// endpointerState is an Endpointer part way through a conversation; frame
// is the next frame's index.
type endpointerState struct {
	rule   Endpointer
	fps    float64
	voices []voice
	// armed: the speaker's last run was long enough to end a turn; claim:
	// the current run began while another speaker spoke.
	armed, claim, began []bool
	lookback, frame     int
	minSpeech           float64 // frames
}

func (s *endpointerState) Step(activity, eot, intr []float64) {
	i, e := s.frame, s.rule
	s.frame++
	for k := range s.voices {
		var ended bool
		s.began[k], ended = s.voices[k].hear(e.Hysteresis, activity[k], i)
		if ended {
			s.armed[k] = float64(i-s.voices[k].onset) >= s.minSpeech
		}
	}
	for k, v := range s.voices {
		eot[k], intr[k] = 0, 0
		if s.began[k] {
			s.claim[k] = !e.INTGate || othersSpokeSince(s.voices, k, i-s.lookback)
		}
		switch {
		case v.speaking && s.claim[k]:
			intr[k] = math.Min(1, float64(i+1-v.onset)/s.fps/e.INTRamp)
		case !v.speaking && s.armed[k]:
			eot[k] = math.Min(1, float64(i+1-v.silentSince)/s.fps/e.EOTRamp)
		}
	}
}
