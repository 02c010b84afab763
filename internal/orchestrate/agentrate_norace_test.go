//go:build !race

package orchestrate_test

// The reference agent's sweeps run at four times real time, four
// sessions at once: the agent and the harness keep time by the audio on
// the same clock, so a faster clock changes no decision
// (docs/agents.md#in-sweeps).
const (
	agentRate        = 4
	agentConcurrency = 4
)
