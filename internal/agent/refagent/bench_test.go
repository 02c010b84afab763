package refagent

import (
	"math/rand/v2"
	"testing"

	"github.com/floorbench/floorbench/internal/agent/proto"
)

// BenchmarkHear is one 20 ms frame through the reference agent's brain
// (speech detector and policy): what a server spends per frame and
// session, against the 20 ms a frame lasts at rate 1.
func BenchmarkHear(b *testing.B) {
	for _, policy := range []string{AlwaysYield, Detector} {
		b.Run(policy, func(b *testing.B) {
			cfg := DefaultConfig(policy)
			if policy == Detector {
				cfg = detectorConfig(b, false)
			}
			ref := &Reference{cfg: cfg, long: [][]float32{make([]float32, proto.SampleRate)}, short: make([]float32, 100)}
			a, err := ref.NewAgent()
			if err != nil {
				b.Fatal(err)
			}
			defer a.(*agent).Close()
			rng := rand.New(rand.NewPCG(1, 2))
			frames := make([][]float32, 500)
			for k := range frames {
				frames[k] = frameAt(rng, -40, -20)
			}
			k := 0
			for b.Loop() {
				if _, err := a.Hear(frames[k%len(frames)], nil); err != nil {
					b.Fatal(err)
				}
				k++
			}
		})
	}
}
