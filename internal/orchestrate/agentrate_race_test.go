//go:build race

package orchestrate_test

// agentRate is the playback rate of the agent sweeps here, under the race
// detector: the reference agent and the harness keep time by the audio on
// the same clock, so a faster clock changes no decision
// (docs/agents.md#in-sweeps), but the race detector slows both sides.
const agentRate = 2
