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

import "github.com/floorbench/floorbench/internal/agent/proto"

// The audio every agent protocol carries: 16 kHz mono PCM16 in 20 ms
// frames, as internal/agent/proto defines it.
const (
	SampleRate   = proto.SampleRate
	FrameSamples = proto.FrameSamples
)

// Condition is one of the four trial conditions of MPTB §4.
type Condition string

// The four conditions. START trials ask whether the agent enters the floor;
// STOP trials whether an agent that is talking yields it.
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

// Conditions lists the four conditions in report order.
var Conditions = []Condition{StartAfterEOT, StartDuringHold, StopOnInterruption, StopOnBackchannel}

// Positive reports whether acting (entering, yielding) is correct.
func (c Condition) Positive() bool { return c == StartAfterEOT || c == StopOnInterruption }

// Stop reports whether c is a STOP condition (the agent must be talking
// before the stimulus is played).
func (c Condition) Stop() bool { return c == StopOnInterruption || c == StopOnBackchannel }
