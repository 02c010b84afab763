//go:build !race

package seated

// testRate is the playback rate of these tests: both sides keep time by
// the audio they hear, so a faster clock changes no decision.
const testRate = 2

// raceBuild says the race detector is on.
const raceBuild = false

// faultRate is the playback rate of the fault tests, whose agent is a
// few lines that keep time by the frames they hear.
const faultRate = 10
