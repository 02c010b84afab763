//go:build !race

package harness

// testRate is the playback rate of these tests: both sides keep time by
// the audio, so a faster clock changes no decision (docs/agents.md#harness).
const testRate = 2
