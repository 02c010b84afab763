//go:build !race

package orchestrate_test

// agentRate is the playback rate of the agent sweeps here: the reference
// agent and the harness keep time by the audio on the same clock, so a
// faster clock changes no decision (docs/agents.md#in-sweeps).
const agentRate = 4
