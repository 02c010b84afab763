// Package agent evaluates full-duplex voice agents (docs/architecture.md#agents):
// the interactive START/STOP trials of MPTB §4 and E.3, built from the
// generator's conversations; the recordings a trial leaves (what was played
// to the agent and what a listener heard from it, on one clock); and the
// scores read from those recordings' audio, never from labels the agent
// emits.
//
// The protocols that carry audio to and from an agent live in
// internal/agent/proto, the harness that plays a trial over one of them in
// internal/agent/harness, and the reference agent in internal/agent/refagent.
//
// One package on purpose: the trial conditions,
// the scenarios built for them, the recording a trial leaves, the output
// VAD that reads it and the decisions and scores made from it share one set
// of definitions (conditions, windows, the recording's clock), which
// docs/agents.md documents as one protocol.
package agent

import (
	"slices"

	"github.com/floorbench/floorbench/internal/agent/proto"
)

// The audio every agent protocol carries: 16 kHz mono PCM16 in 20 ms
// frames, as internal/agent/proto defines it.
const (
	SampleRate   = proto.SampleRate
	FrameSamples = proto.FrameSamples
)

// Condition is one trial condition: one of the four of MPTB §4, or one
// of the scenes beyond them (docs/agents.md#scenes).
type Condition string

// The four conditions of MPTB. START trials ask whether the agent enters
// the floor; STOP trials whether an agent that is talking yields it.
const (
	// StartAfterEOT: a participant ends a turn that hands the floor to the
	// agent. Entering is correct (a START positive).
	StartAfterEOT Condition = "start-after-eot"
	// StartDuringHold: a participant pauses mid-turn, then goes on. Staying
	// silent is correct (a START negative).
	StartDuringHold Condition = "start-during-hold"
	// StopOnInterruption: while the agent talks, a participant takes the
	// floor. Stopping is correct (a STOP positive).
	StopOnInterruption Condition = "stop-on-interruption"
	// StopOnBackchannel: while the agent talks, a participant backchannels.
	// Going on is correct (a STOP negative).
	StopOnBackchannel Condition = "stop-on-backchannel"
)

// The scenes beyond MPTB's four: negatives only, each a sound a real
// agent hears that does not claim or hand over the floor.
const (
	// StopOnSideTalk: while the agent talks, a participant asks another
	// participant something by name. Going on is correct.
	StopOnSideTalk Condition = "stop-on-side-talk"
	// StopOnBackgroundSpeech: while the agent talks, a radio or TV under
	// the conversation speaks. Going on is correct.
	StopOnBackgroundSpeech Condition = "stop-on-background-speech"
	// StopOnVocalisation: while the agent talks, a participant coughs,
	// laughs or clears their throat. Going on is correct.
	StopOnVocalisation Condition = "stop-on-vocalisation"
	// StopOnNoiseBurst: while the agent talks, something bangs or clatters.
	// Going on is correct.
	StopOnNoiseBurst Condition = "stop-on-noise-burst"
	// StartDuringFillerHold: a participant addresses the agent, says a
	// filler ("um"), pauses, then goes on. Staying silent is correct.
	StartDuringFillerHold Condition = "start-during-filler-hold"
	// StartDuringBackgroundHold: a hold with a radio or TV speaking through
	// the pause. Staying silent is correct.
	StartDuringBackgroundHold Condition = "start-during-background-hold"
)

// MPTBConditions are MPTB's four, in report order: the START and STOP
// axes (balanced accuracy, action bias) are scored on them alone.
var MPTBConditions = []Condition{StartAfterEOT, StartDuringHold, StopOnInterruption, StopOnBackchannel}

// SceneConditions are the conditions beyond MPTB's, in report order.
var SceneConditions = []Condition{StopOnSideTalk, StopOnBackgroundSpeech, StopOnVocalisation, StopOnNoiseBurst,
	StartDuringFillerHold, StartDuringBackgroundHold}

// Conditions lists every condition in report order: MPTB's, then the
// scenes.
var Conditions = append(append([]Condition{}, MPTBConditions...), SceneConditions...)

// Positive reports whether acting (entering, yielding) is correct.
func (c Condition) Positive() bool { return c == StartAfterEOT || c == StopOnInterruption }

// Stop reports whether c is a STOP condition (the agent must be talking
// before the stimulus is played).
func (c Condition) Stop() bool { return StimulusOf(c) != "" }

// Hold reports whether c is a START negative with a hold pause: the
// holding speaker goes on at resume_s.
func (c Condition) Hold() bool {
	return c == StartDuringHold || c == StartDuringFillerHold || c == StartDuringBackgroundHold
}

// MPTB reports whether c is one of MPTB's four conditions.
func (c Condition) MPTB() bool { return slices.Contains(MPTBConditions, c) }
