//go:build race

package refagent

// testRate is the playback rate of these tests: the race detector slows
// the realtime protocol's JSON and resampling past ten times real time.
const testRate = 2
