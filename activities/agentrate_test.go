package activities

// agentRate is the playback rate of the sessions played here: twice real
// time, with or without the race detector (scripts/test.sh runs this
// package under it). The activities dial the agent at the URL of a sweep
// spec, over sockets, so these sessions keep the wall clock; both sides
// keep time by the audio, so the rate changes how long a trial takes, not
// what it decides.
const agentRate = 2
