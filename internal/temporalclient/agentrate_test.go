package temporalclient_test

// The reference agent's sweeps run at four times real time, four
// sessions at once: the agent and the harness keep time by the audio on
// the same clock, so a faster clock changes no decision
// (docs/agents.md#in-sweeps). These sweeps go through a Temporal dev
// server over sockets, on the wall clock, and are skipped with -short
// (scripts/test.sh's pass under the race detector).
const (
	agentRate        = 4
	agentConcurrency = 4
)

// The seated sweeps play every seat of tiny at twice real time, 3
// sessions per agent at once: the seated known answer compares what was heard, so
// the agents' replies must not be starved late on a loaded machine.
const (
	seatedRate        = 2
	seatedConcurrency = 3
)
