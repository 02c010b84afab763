package synth

import (
	"math"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/dialogue"
	"github.com/floorbench/floorbench/internal/floor"
)

func TestAcousticsAddNoiseAtTheDrawnSNR(t *testing.T) {
	spec := ConversationSpec{ID: "n", Split: dialogue.Test, Type: dialogue.Casual, Speakers: 3, Seconds: 10}
	p := FloorPlan{Spec: spec, Acts: []Act{
		{Kind: floor.Turn, Speaker: 1}, {Kind: floor.Turn, Speaker: 2}, {Kind: floor.Turn, Speaker: 3},
	}}
	r := Rendering{Acts: []RenderedAct{{Clips: [][]float32{clip(8000)}}, {Clips: [][]float32{clip(8000)}}, {Clips: [][]float32{clip(8000)}}}}
	cast := Cast{Levels: []float64{0.1, 0.05, 0.08}}
	kinds := map[audio.NoiseKind]bool{}
	for seed := range uint64(12) {
		tl := Timeline{Channels: [][]float32{make([]float32, 4*audio.Rate), make([]float32, 4*audio.Rate), make([]float32, 4*audio.Rate)}}
		ac, err := ApplyAcoustics(&tl, cast, r, p, StreamFor(seed, "n", StageAcoustics))
		if err != nil {
			t.Fatal(err)
		}
		for k, a := range ac {
			kinds[a.Noise] = true
			if a.SNR < MinSNR || a.SNR > MaxSNR {
				t.Fatalf("SNR %v outside [%v, %v]", a.SNR, MinSNR, MaxSNR)
			}
			// The channels were silent, so what is there is the noise: its
			// RMS sits SNR dB under the speaker's speech level.
			got := audio.DB(cast.Levels[k] / audio.RMS(tl.Channels[k]))
			if math.Abs(got-a.SNR) > 0.01 {
				t.Fatalf("speaker %d %s noise: realised SNR %.3f dB, drawn %.3f", k+1, a.Noise, got, a.SNR)
			}
		}
	}
	if len(kinds) != 3 {
		t.Fatalf("noise kinds drawn over 36 channels: %v", kinds)
	}
}
