package main

// sweepAgentRate is the playback rate of the agent sweeps here: the reference
// agent and the harness keep time by the audio on the same clock, so a
// faster clock changes no decision (docs/agents.md#in-sweeps). The sweeps
// play over sockets through floorbench processes, on the wall clock, one
// rate whatever the build (scripts/test.sh runs this package without the
// race detector).
const sweepAgentRate = 4
