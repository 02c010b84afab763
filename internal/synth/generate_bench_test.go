package synth

import (
	"context"
	"testing"
)

// BenchmarkGenerateConversation generates one full-length mptb
// conversation (about 100 s, three speakers) through all five stages and
// reports audio hours generated per wall minute on one core.
func BenchmarkGenerateConversation(b *testing.B) {
	e := enginesForTest(b)
	p, _ := PresetByName("mptb", 1)
	spec := p.Conversations[70] // 3 speakers, collaborative
	var seconds float64
	for i := 0; b.Loop(); i++ {
		c, err := Generate(context.Background(), uint64(i), spec, e)
		if err != nil {
			b.Fatal(err)
		}
		seconds += c.Duration()
	}
	b.ReportMetric(seconds/3600/b.Elapsed().Minutes(), "audio-h/wall-min")
}
