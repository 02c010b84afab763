package limits

import "time"

// Bounds and defaults of an agent's sessions (docs/agents.md): how many
// are open at once, how often one is retried, how long the settings an
// agent is described by may be. A spec's agents and the `agent run` and
// `agent seat` flags are checked against them.
//
// Unlike Limits they are fixed, not configured: they are part of what a
// spec means, so a spec that one worker accepts every worker accepts.
const (
	// MaxAgentSessions bounds the sessions open at once to one agent:
	// hosted realtime APIs allow a project a few; 256 is a load test.
	MaxAgentSessions = 256
	// DefaultAgentSessions is what most hosted realtime APIs allow a
	// project at once.
	DefaultAgentSessions = 4
	// MaxSessionRetries bounds the retries of a failed session before its
	// trial or seat is recorded as failed; DefaultSessionRetries and
	// DefaultSessionBackoff (the wall-time wait before the first retry,
	// doubled before each next one) are the command line's defaults (a
	// sweep's retries are Temporal's).
	MaxSessionRetries     = 10
	DefaultSessionRetries = 2
	DefaultSessionBackoff = time.Second
	// MaxAgentRepeats bounds how often each scenario is played to one
	// agent (MPTB: 3).
	MaxAgentRepeats = 100
	// MaxAgentSetting bounds, in bytes, an agent's model and voice names.
	MaxAgentSetting = 200
	// MaxAgentInstructions bounds, in bytes, a realtime agent's
	// instructions: every trial's activity input carries them.
	MaxAgentInstructions = 4 << 10
	// MaxOnsetWaitS bounds, in seconds, how long a STOP trial waits to
	// hear the agent start after its prompt.
	MaxOnsetWaitS = 60.0
	// MaxSeatTailS bounds, in seconds, the silence sent after a seated
	// conversation; DefaultSeatTailS is its default.
	MaxSeatTailS     = 10.0
	DefaultSeatTailS = 0.5
	// MaxSeatSpeaker bounds the speaker number an agent is seated as.
	MaxSeatSpeaker = 16
	// MaxRecordedErrorBytes bounds the error a failed trial's or seat's
	// recording holds.
	MaxRecordedErrorBytes = 4000
)
