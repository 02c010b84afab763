package synth

import (
	"fmt"
	"math/rand/v2"

	"github.com/floorbench/floorbench/internal/audio"
)

// SNR range of the acoustics stage (docs/architecture.md#generator: 20-38 dB by default), as
// speech level over noise level on each speaker's own channel.
const (
	MinSNR = 20.0
	MaxSNR = 38.0
)

// MinTrainSNR is the train preset's lowest SNR: its channels range
// further into the noise than the evaluation presets' (to MaxSNR).
const MinTrainSNR = 15.0

// babbleTalkers is how many streams make up babble noise.
const babbleTalkers = 6

// ChannelAcoustics is what stage 4 drew for one channel.
type ChannelAcoustics struct {
	SNR   float64         // dB, speech RMS over noise RMS
	Noise audio.NoiseKind // white, pink or babble; brown, hum or babble in training
}

// ApplyAcoustics adds noise to every channel of the timeline in place: a
// kind (white, pink, or babble made of the conversation's other speakers'
// utterances) and an SNR drawn per channel, the noise scaled against that
// speaker's speech level. A train conversation draws brown noise, hum or
// babble instead, from MinTrainSNR up.
func ApplyAcoustics(tl *Timeline, cast Cast, r Rendering, p FloorPlan, rng *rand.Rand) ([]ChannelAcoustics, error) {
	out := make([]ChannelAcoustics, len(tl.Channels))
	for k, ch := range tl.Channels {
		a := ChannelAcoustics{SNR: MinSNR + (MaxSNR-MinSNR)*rng.Float64()}
		if p.Spec.Train {
			a.SNR = MinTrainSNR + (MaxSNR-MinTrainSNR)*rng.Float64()
		}
		var noise []float32
		switch u := rng.Float64(); {
		case p.Spec.Train && u < 0.35:
			a.Noise, noise = audio.Brown, audio.BrownNoise(rng, len(ch))
		case p.Spec.Train && u < 0.7:
			a.Noise, noise = audio.Hum, audio.HumNoise(rng, len(ch))
		case !p.Spec.Train && u < 0.3:
			a.Noise, noise = audio.White, audio.WhiteNoise(rng, len(ch))
		case !p.Spec.Train && u < 0.7:
			a.Noise, noise = audio.Pink, audio.PinkNoise(rng, len(ch))
		default:
			a.Noise = audio.Babble
			var err error
			noise, err = audio.BabbleNoise(rng, len(ch), babbleTalkers, otherClips(p, r, k+1))
			if err != nil {
				return nil, fmt.Errorf("%s speaker %d: %w", p.Spec.ID, k+1, err)
			}
		}
		audio.AddAt(ch, noise, 0, cast.Levels[k]/audio.FromDB(a.SNR))
		if pk := audio.Peak(ch); pk >= 1 {
			return nil, fmt.Errorf("%s: speaker %d clips (peak %.3f) after noise", p.Spec.ID, k+1, pk)
		}
		out[k] = a
	}
	return out, nil
}

// otherClips are the rendered clips of every speaker but `speaker`.
func otherClips(p FloorPlan, r Rendering, speaker int) [][]float32 {
	var out [][]float32
	for i, a := range p.Acts {
		if a.Speaker != speaker {
			out = append(out, r.Acts[i].Clips...)
		}
	}
	return out
}
