//go:build race

package temporalclient_test

// The reference agent's sweeps under the race detector run in real time
// and two sessions at once: the race detector slows both the agent and
// the harness, and on a loaded machine a faster clock left the agent's
// answers late for their windows.
const (
	agentRate        = 1
	agentConcurrency = 2
)

// The seated sweeps under the race detector play speaker 1's seats of
// tiny in real time, 2 sessions per agent at once.
const (
	seatedRate        = 1
	seatedConcurrency = 2
)
