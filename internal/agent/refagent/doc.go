// Package refagent is floorbench's reference voice agent
// (docs/agents.md#reference-agent): a real server of every agent protocol
// that speaks with espeak-ng and takes its floor decisions, frame by
// frame, from what it hears. It is a baseline to compare agents with and
// the harness's test double over the real protocols.
//
// # Policies
//
// always-yield enters once the other side has spoken and then been silent
// for EntrySilence, and stops at once when anyone speaks over it; after
// such a yield it waits ReentrySilence (1.5 s) before it enters again.
// never-yield enters the same way and never stops before its utterance
// ends. Both hear through SpeechDetector, a causal energy detector with
// hysteresis. detector is the cascaded agent: a floorbench detector system
// streamed over what the agent hears (speaker 0) and says (speaker 1),
// committed by the protocol's commit rule at a threshold; a committed EOT
// enters, a committed INT while talking stops it. In speak-at-commit mode
// it says a short utterance at every EOT commit, so a seated agent speaks
// where the offline detector commits.
//
// # Utterances
//
// The agent's utterances are spoken once, when the Reference is made, at
// 16 kHz; it says the long ones in turn. A realtime server resamples what
// it sends to 24 kHz as it sends it.
package refagent
