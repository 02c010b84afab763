package synth

import (
	"context"
	"fmt"
	"math"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/floor"
)

// Speech boundaries are measured on 2 ms frames: an utterance starts at the
// first frame within speechFloorDB of its loudest frame and ends at the
// last such frame. Everything outside is cut, and 2 ms ramps at both ends
// keep the cut click-free, so the channel holds no speech energy outside
// the logged extent and the log is exact to the sample. -20 dB keeps the
// boundary frames at or above the noise even at the lowest SNR (20 dB), so
// the energy of the noisy channel starts and ends where the log says.
const (
	boundaryFrame = audio.Rate / 500
	speechFloorDB = -20
	peakCeiling   = 0.8 // utterances are scaled down if a peak would pass this
)

// RenderedAct holds one act's audio: one clip per TURN segment, or the
// single clip of any other act. Clips are trimmed to their speech and
// scaled to the speaker's level.
type RenderedAct struct {
	Clips [][]float32
}

// Rendering is stage 3's output, parallel to the plan's acts.
type Rendering struct {
	Acts []RenderedAct
	// Sources are the cache keys of the renderings of engines that are
	// KeyedTTS, in the order first used.
	Sources []string
}

// Render synthesises every utterance of the plan with the cast's voices.
// Repeated texts of one voice (backchannels, mostly) are synthesised once.
func Render(ctx context.Context, p FloorPlan, cast Cast, engines map[string]TTS) (Rendering, error) {
	cache := map[string][]float32{}
	var sources []string
	say := func(u Utterance) ([]float32, error) {
		v := cast.Voices[u.Speaker-1]
		key := v.ID + "\x00" + u.Text
		if c, ok := cache[key]; ok {
			return c, nil
		}
		tts, ok := engines[v.Engine]
		if !ok {
			return nil, fmt.Errorf("no TTS engine %q for voice %s", v.Engine, v.ID)
		}
		raw, err := tts.Synthesize(ctx, u.Text, v)
		if err != nil {
			return nil, err
		}
		if k, ok := tts.(KeyedTTS); ok {
			sources = append(sources, k.SpeechKey(u.Text, v))
		}
		c := TrimSpeech(raw)
		if len(c) == 0 {
			return nil, fmt.Errorf("voice %s rendered %q as silence", v.ID, u.Text)
		}
		level(c, cast.Levels[u.Speaker-1])
		cache[key] = c
		return c, nil
	}
	r := Rendering{Acts: make([]RenderedAct, len(p.Acts))}
	for i, a := range p.Acts {
		us := a.Segments
		if a.Kind != floor.Turn {
			us = []Utterance{a.Utterance}
		}
		for _, u := range us {
			c, err := say(u)
			if err != nil {
				return Rendering{}, fmt.Errorf("%s act %d: %w", p.Spec.ID, i, err)
			}
			r.Acts[i].Clips = append(r.Acts[i].Clips, c)
		}
	}
	r.Sources = sources
	return r, nil
}

// speechFrames returns the 2 ms frame RMS of x and the speech threshold.
func speechFrames(x []float32) ([]float64, float64) {
	fr := audio.FrameRMS(x, boundaryFrame)
	loudest := 0.0
	for _, v := range fr {
		loudest = max(loudest, v)
	}
	return fr, loudest * audio.FromDB(speechFloorDB)
}

// A boundary frame must also open (or close) 10 ms of speech: the RMS of
// the five frames from it onwards (backwards, for an end) must reach
// edgeShare of the threshold. An isolated plosive burst followed by a
// closure is not yet an onset; this keeps the 10 ms inside every logged
// boundary audibly speech, which `corpus check` verifies on the noisy
// channel.
const (
	edgeFrames = 5
	edgeShare  = 0.7
)

// opens reports whether frame i starts (dir 1) or ends (dir -1) speech.
func opens(fr []float64, thr float64, i, dir int) bool {
	if fr[i] <= thr {
		return false
	}
	var s float64
	n := 0
	for k := 0; k < edgeFrames; k++ {
		j := i + dir*k
		if j < 0 || j >= len(fr) {
			break
		}
		s += fr[j] * fr[j]
		n++
	}
	return math.Sqrt(s/float64(edgeFrames)) >= edgeShare*thr
}

// TrimSpeech cuts x to its speech (see boundaryFrame) and ramps the ends.
// It returns a new slice; silence returns an empty one.
func TrimSpeech(x []float32) []float32 {
	fr, thr := speechFrames(x)
	if thr <= 0 {
		return nil
	}
	first, last := -1, -1
	for i := range fr {
		if opens(fr, thr, i, 1) {
			first = i
			break
		}
	}
	for i := len(fr) - 1; i > first; i-- {
		if opens(fr, thr, i, -1) {
			last = i
			break
		}
	}
	if first < 0 || last < 0 {
		return nil
	}
	out := append([]float32(nil), x[first*boundaryFrame:(last+1)*boundaryFrame]...)
	ramp(out)
	return out
}

// CutSpeech ends clip x at the last speech frame before sample n, as a
// speaker who is overtaken stops mid-utterance. It returns the new clip
// and false when no speech is left before n.
func CutSpeech(x []float32, n int) ([]float32, bool) {
	fr, thr := speechFrames(x)
	last := -1
	for i := min(len(fr), n/boundaryFrame) - 1; i >= 0; i-- {
		if opens(fr, thr, i, -1) {
			last = i
			break
		}
	}
	if last < 0 {
		return nil, false
	}
	out := append([]float32(nil), x[:(last+1)*boundaryFrame]...)
	ramp(out)
	return out, true
}

// resumePoint is where a speaker who cut off restarts in clip x, about
// target samples in: the first frame that opens speech after the quietest
// frame within 0.1 s of target (most often a syllable or word boundary).
func resumePoint(x []float32, target int) int {
	fr, thr := speechFrames(x)
	span := audio.Rate / 10 / boundaryFrame
	at := min(max(target/boundaryFrame, 0), len(fr)-1)
	q := at
	for i := max(0, at-span); i <= min(len(fr)-1, at+span); i++ {
		if fr[i] < fr[q] {
			q = i
		}
	}
	for i := q; i < len(fr); i++ {
		if opens(fr, thr, i, 1) {
			return i * boundaryFrame
		}
	}
	return q * boundaryFrame
}

// fadeIn fades the first frame in (raised cosine), as ramp does.
func fadeIn(x []float32) {
	n := min(boundaryFrame, len(x)/2)
	for i := range n {
		x[i] *= float32(0.5 - 0.5*math.Cos(math.Pi*float64(i+1)/float64(n+1)))
	}
}

// ramp fades the first and last frame in and out (raised cosine).
func ramp(x []float32) {
	n := min(boundaryFrame, len(x)/2)
	for i := range n {
		g := float32(0.5 - 0.5*math.Cos(math.Pi*float64(i+1)/float64(n+1)))
		x[i] *= g
		x[len(x)-1-i] *= g
	}
}

// level scales a clip so its speech frames have RMS target, lowering the
// gain if a peak would pass peakCeiling.
func level(x []float32, target float64) {
	fr, thr := speechFrames(x)
	var s float64
	n := 0
	for _, v := range fr {
		if v > thr {
			s += v * v
			n++
		}
	}
	if n == 0 {
		return
	}
	g := target / math.Sqrt(s/float64(n))
	if pk := audio.Peak(x) * g; pk > peakCeiling {
		g *= peakCeiling / pk
	}
	audio.Gain(x, g)
}
