//go:build !race

package activities

// agentRate is the playback rate of the sessions played here: four times
// real time keeps a trial of tiny-agent, or a seat in a fixture
// conversation, to a few seconds.
const agentRate = 4
