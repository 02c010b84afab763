//go:build race

package activities

// agentRate is the playback rate of the sessions played here under the
// race detector, which slows both the agent and the harness: twice real
// time.
const agentRate = 2
