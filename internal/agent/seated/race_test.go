//go:build race

package seated

// testRate is the playback rate of these tests: the race detector slows
// the realtime protocol's JSON and resampling tenfold.
const testRate = 1

// raceBuild says the race detector is on: the known answer then seats
// fewer speakers, so that every session keeps up with real time.
const raceBuild = true

// faultRate is the playback rate of the fault tests, whose agent is a
// few lines that keep time by the frames they hear.
const faultRate = 2
