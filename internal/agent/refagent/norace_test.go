//go:build !race

package refagent

// testRate is the playback rate of these tests: ten times real time.
const testRate = 10
