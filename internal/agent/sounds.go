package agent

import (
	"math"
	"math/rand/v2"

	"github.com/floorbench/floorbench/internal/audio"
)

// Non-speech sounds of the scenes (docs/agents.md#scenes), synthesised
// from signal models rather than recorded or spoken: espeak-ng reads
// "cough" as the word, and no engine floorbench uses has vocal sounds.
// Every model is a source (a glottal pulse train for the voiced part,
// white noise for the breathy or impact part) through two-pole formant
// resonators, under an amplitude envelope; every free value is drawn from
// rng, so a sound depends on the scenario's stream alone.

// Vocalisation names, as a stimulus's text gives them.
const (
	soundCough       = "cough"
	soundLaugh       = "laugh"
	soundThroatClear = "throat-clear"
)

var vocalisations = []string{soundCough, soundLaugh, soundThroatClear}

// sound is a clip under construction at SampleRate.
type sound []float32

func seconds(s float64) int { return int(math.Round(s * SampleRate)) }

func uniform(rng *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }

// pulses is a glottal source: one pulse per period of f0 (Hz, gliding
// linearly from f0 to f1), with jitter a fraction of the period, through
// a one-pole low-pass for the source's spectral tilt.
func pulses(rng *rand.Rand, n int, f0, f1, jitter float64) sound {
	out := make(sound, n)
	next := 0.0
	for next < float64(n) {
		i := int(next)
		out[i] = 1
		f := f0 + (f1-f0)*next/float64(n)
		next += SampleRate / f * (1 + jitter*(2*rng.Float64()-1))
	}
	return onePoleLowPass(out, 800)
}

func noise(rng *rand.Rand, n int) sound { return sound(audio.WhiteNoise(rng, n)) }

// resonate passes x through parallel two-pole resonators at the formant
// frequencies fs (Hz) with bandwidths bw (Hz), summed.
func resonate(x sound, fs, bw []float64) sound {
	out := make(sound, len(x))
	for k, f := range fs {
		r := math.Exp(-math.Pi * bw[k] / SampleRate)
		a1, a2 := -2*r*math.Cos(2*math.Pi*f/SampleRate), r*r
		g := 1 - r
		var y1, y2 float64
		for i, v := range x {
			y := g*float64(v) - a1*y1 - a2*y2
			y2, y1 = y1, y
			out[i] += float32(y)
		}
	}
	return out
}

func onePoleLowPass(x sound, cutoff float64) sound {
	a := math.Exp(-2 * math.Pi * cutoff / SampleRate)
	out := make(sound, len(x))
	var y float64
	for i, v := range x {
		y = (1-a)*float64(v) + a*y
		out[i] = float32(y)
	}
	return out
}

func onePoleHighPass(x sound, cutoff float64) sound {
	low := onePoleLowPass(x, cutoff)
	out := make(sound, len(x))
	for i := range x {
		out[i] = x[i] - low[i]
	}
	return out
}

// envelope scales x by a linear attack of attack s and, after hold s, an
// exponential decay with time constant tau s.
func envelope(x sound, attack, hold, tau float64) sound {
	for i := range x {
		t := float64(i) / SampleRate
		g := 1.0
		switch {
		case t < attack:
			g = t / attack
		case t > attack+hold:
			g = math.Exp(-(t - attack - hold) / tau)
		}
		x[i] *= float32(g)
	}
	return x
}

// normalisePeak scales x to a peak of 1.
func normalisePeak(x sound) sound {
	if pk := audio.Peak(x); pk > 0 {
		audio.Gain(x, 1/pk)
	}
	return x
}

// mixInto adds src into dst at sample offset, growing dst as needed.
func mixInto(dst sound, src sound, offset int, gain float64) sound {
	if need := offset + len(src); need > len(dst) {
		dst = append(dst, make(sound, need-len(dst))...)
	}
	audio.AddAt(dst, src, offset, gain)
	return dst
}

// cough: one or two bursts 0.15-0.3 s apart, each a voiced onset (30-60 ms
// of pulses at 120-220 Hz through the formants of a lax vowel) and a
// noise burst through a broad resonance at 600-1800 Hz that attacks in
// 8 ms and decays with a 60-120 ms time constant.
func cough(rng *rand.Rand) sound {
	var out sound
	at := 0
	for b := range 1 + rng.IntN(2) {
		if b > 0 {
			at += seconds(uniform(rng, 0.15, 0.3))
		}
		n := seconds(uniform(rng, 0.2, 0.35))
		f0 := uniform(rng, 120, 220)
		voiced := pulses(rng, seconds(uniform(rng, 0.03, 0.06)), f0, 0.8*f0, 0.05)
		voiced = envelope(normalisePeak(resonate(voiced, []float64{500, 1500}, []float64{120, 200})), 0.005, 0.02, 0.02)
		burst := resonate(noise(rng, n), []float64{uniform(rng, 600, 1800), 2500}, []float64{600, 900})
		burst = envelope(normalisePeak(burst), 0.008, 0.01, uniform(rng, 0.06, 0.12))
		part := mixInto(burst, voiced, 0, 0.6)
		out = mixInto(out, part, at, math.Pow(0.7, float64(b)))
		at += len(part)
	}
	return out
}

// laugh: 3-5 "ha" syllables 0.18-0.24 s apart, each 30 ms of breath noise
// and 80-120 ms of pulses at an F0 falling from 220-320 Hz through the
// formants of /a/ (800, 1200, 2500 Hz), each 0.85 times the one before.
func laugh(rng *rand.Rand) sound {
	var out sound
	f0 := uniform(rng, 220, 320)
	step := uniform(rng, 0.18, 0.24)
	for k := range 3 + rng.IntN(3) {
		breath := envelope(normalisePeak(resonate(noise(rng, seconds(0.03)), []float64{1200}, []float64{1500})), 0.005, 0.01, 0.01)
		vn := seconds(uniform(rng, 0.08, 0.12))
		voiced := pulses(rng, vn, f0, 0.9*f0, 0.03)
		voiced = envelope(normalisePeak(resonate(voiced, []float64{800, 1200, 2500}, []float64{100, 120, 200})), 0.01, 0.5*float64(vn)/SampleRate, 0.03)
		syl := mixInto(sound{}, breath, 0, 0.3)
		syl = mixInto(syl, voiced, len(breath), 1)
		out = mixInto(out, syl, seconds(float64(k)*step), math.Pow(0.85, float64(k)))
		f0 *= 0.95
	}
	return out
}

// throatClear: 0.35-0.6 s of low noise through a 250 Hz resonance over
// creaky pulses at 70-100 Hz, rising in 50 ms and falling in the last
// 100 ms, then after 60 ms a voiced "hm": 0.12 s of pulses at 100-130 Hz
// through a nasal resonance at 250 Hz.
func throatClear(rng *rand.Rand) sound {
	n := seconds(uniform(rng, 0.35, 0.6))
	rasp := resonate(noise(rng, n), []float64{250, 900}, []float64{300, 500})
	creak := resonate(pulses(rng, n, uniform(rng, 70, 100), uniform(rng, 60, 80), 0.25), []float64{350, 1100}, []float64{150, 250})
	body := mixInto(normalisePeak(rasp), normalisePeak(creak), 0, 0.7)
	body = envelope(normalisePeak(body), 0.05, float64(n)/SampleRate-0.15, 0.03)
	f0 := uniform(rng, 100, 130)
	hm := envelope(normalisePeak(resonate(pulses(rng, seconds(0.12), f0, 0.9*f0, 0.02), []float64{250, 2200}, []float64{80, 300})), 0.01, 0.06, 0.02)
	return mixInto(body, hm, len(body)+seconds(0.06), 0.6)
}

// vocalise draws which vocalisation a participant makes and synthesises it.
func vocalise(rng *rand.Rand) (string, sound) {
	switch name := vocalisations[rng.IntN(len(vocalisations))]; name {
	case soundCough:
		return name, cough(rng)
	case soundLaugh:
		return name, laugh(rng)
	default:
		return name, throatClear(rng)
	}
}

// noiseBurst: one to three impacts (something dropped, a door) 0.05-0.15 s
// apart, each white noise through a one-pole low-pass at 1-6 kHz that
// attacks in 3 ms and decays with a 40-150 ms time constant, for 0.15-0.5
// s, each 0.6 times the one before.
func noiseBurst(rng *rand.Rand) sound {
	var out sound
	at := 0
	for k := range 1 + rng.IntN(3) {
		n := seconds(uniform(rng, 0.15, 0.5))
		hit := onePoleLowPass(noise(rng, n), uniform(rng, 1000, 6000))
		hit = envelope(normalisePeak(hit), 0.003, 0, uniform(rng, 0.04, 0.15))
		out = mixInto(out, hit, at, math.Pow(0.6, float64(k)))
		at += seconds(uniform(rng, 0.05, 0.15))
	}
	return out
}

// radio band-limits speech as a small loudspeaker does: 300 Hz to 3.4 kHz
// (a one-pole high-pass, two one-pole low-passes).
func radio(x []float32) sound {
	return onePoleLowPass(onePoleLowPass(onePoleHighPass(x, 300), 3400), 3400)
}

// levelTo scales x so that its SpeechLevel is target, with its peak kept
// at most mixCeiling.
func levelTo(x sound, target float64) sound {
	l := SpeechLevel(x)
	if l == 0 {
		return x
	}
	g := target / l
	if pk := audio.Peak(x) * g; pk > mixCeiling {
		g *= mixCeiling / pk
	}
	audio.Gain(x, g)
	return x
}

// fade ramps x in and out over fadeSeconds, so a cut clip does not click.
func fade(x sound) sound {
	n := min(seconds(fadeSeconds), len(x)/2)
	for i := range n {
		g := float32(i) / float32(n)
		x[i] *= g
		x[len(x)-1-i] *= g
	}
	return x
}

// fadeSeconds is the ramp at both ends of a cut background clip.
const fadeSeconds = 0.02
