//go:build race

package harness

// testRate is the playback rate of these tests under the race detector:
// real time. The race detector slows the agent and the harness several
// fold; at twice real time a loaded machine starved the agent's playback
// for more than the scorer's stop silence, so a gap in what was heard
// read as a yield, or a stimulus found the agent not talking.
const testRate = 1
