//go:build race

package main

// sweepAgentRate is the playback rate of the agent sweeps here under the
// race detector: real time, since the race detector slows both the agent
// and the harness.
const sweepAgentRate = 1
