//go:build race

package proto

// testRate is the playback rate of these tests. The race detector slows
// the realtime protocol's JSON and resampling twentyfold, past what ten
// times real time leaves for them.
const testRate = 2
