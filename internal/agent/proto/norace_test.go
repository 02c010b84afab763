//go:build !race

package proto

// testRate is the playback rate of these tests: ten times real time.
const testRate = 10
