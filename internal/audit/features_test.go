package audit

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/floor"
)

// frames builds Frames at 10 fps from speech patterns ("x" speech, "."
// silence), one string per speaker.
func frames(patterns ...string) *Frames {
	f := &Frames{FrameRate: 10}
	for _, p := range patterns {
		s := make([]bool, len(p))
		for i, c := range p {
			s[i] = c == 'x'
		}
		f.Speech = append(f.Speech, s)
	}
	return f
}

func near(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Abs(x-y) < 1e-9 })
}

func TestDurationFeatures(t *testing.T) {
	//         0123456789
	holder := "xxxxx....."
	claim := "..xxxxx.xx"
	f := frames(holder, claim)
	cases := []struct {
		name string
		got  []float64
		want []float64
	}{
		{"own silence before speaking and after", ownSilence(f, 0), []float64{0, 0, 0, 0, 0, .1, .2, .3, .4, .5}},
		{"run elapsed counts through silence", runElapsed(f, 1), []float64{0, 0, .1, .2, .3, .4, .5, .6, .1, .2}},
		{"run length", runLength(f, 1), []float64{0, 0, .1, .2, .3, .4, .5, 0, .1, .2}},
		// The run at 8 begins 0.3 s after the holder stopped: within the
		// 0.5 s lookback, so it is overlapping too.
		{"overlap run length", overlapRunLength(f, 1), []float64{0, 0, .1, .2, .3, .4, .5, 0, .1, .2}},
		// Counted from the onset of the run, not from the holder's last
		// speech before it.
		{"holder silence since the claim's onset", holderSilence(f, 1), []float64{0, 0, 0, 0, 0, .1, .2, 0, .1, .2}},
		{"the holder's run did not begin in overlap", overlapRunLength(f, 0), make([]float64, 10)},
		// Silence after the overlapping run 2-6 counts from frame 7 until
		// the speaker speaks again at 8.
		{"silence after an overlapping run", overlapRunEnd(f, 1), []float64{0, 0, 0, 0, 0, 0, 0, .1, 0, 0}},
		// The holder's own run began alone: its silence is not counted.
		{"no silence counted after a run that began alone", overlapRunEnd(f, 0), make([]float64, 10)},
	}
	for _, c := range cases {
		if !near(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	aside := frames("xxxxxxxxxx", ".xxx......")
	if got, want := overlapRunEnd(aside, 1), []float64{0, 0, 0, 0, .1, .2, .3, .4, .5, .6}; !near(got, want) {
		t.Errorf("silence after an aside: got %v, want %v", got, want)
	}
	late := frames("xx..........", "........xxxx")
	if got := overlapRunLength(late, 1); slices.Max(got) != 0 {
		t.Errorf("a run 0.6 s after the other stopped is gated in: %v", got)
	}
}

func TestWordCountsSpreadWordsOverTheEvent(t *testing.T) {
	// 4 words over [1.0, 3.0]: one every 0.5 s; frame i ends at (i+1)/10.
	events := []floor.Event{{Kind: floor.Interruption, Speaker: 2, Start: 1, End: 3, Words: 4}}
	got := wordCounts(events, 2, 40, 10)
	for i, want := range map[int]uint16{9: 0, 10: 0, 13: 0, 14: 1, 18: 1, 19: 2, 28: 3, 29: 4, 30: 0} {
		if got[i] != want {
			t.Errorf("frame %d: %d words, want %d", i, got[i], want)
		}
	}
	if slices.Max(wordCounts(events, 1, 40, 10)) != 0 {
		t.Error("another speaker's words counted")
	}
}

func TestRuleThresholdsInvertTheScore(t *testing.T) {
	for _, k := range []Kind{Duration, Loudness, Quietness, WordCount} {
		for _, theta := range []float64{0.01, 0.2, 0.5, 0.77, 0.95} {
			v := k.value(theta)
			above, below := v+1e-6, v-1e-6
			if k == Quietness {
				above, below = below, above
			}
			if k == WordCount {
				above, below = v, v-1
			}
			if !(k.score(above) > theta) || k.score(below) > theta {
				t.Errorf("kind %d theta %v: value %v does not separate firing (%v) from not (%v)", k, theta, v, k.score(above), k.score(below))
			}
		}
	}
}

// TestFeaturesAreCausal changes the audio after a cut and checks that no
// feature changes on a frame that ends before it.
func TestFeaturesAreCausal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const seconds, fps = 12.0, 100.0
	n := int(seconds * audio.Rate)
	channels := make([][]float32, 3)
	for k := range channels {
		channels[k] = audio.WhiteNoise(rng, n)
		audio.Gain(channels[k], audio.FromDB(-60))
		for b := range 8 {
			start := rng.IntN(n - audio.Rate)
			burst := audio.WhiteNoise(rng, rng.IntN(audio.Rate)+1)
			audio.Gain(burst, audio.FromDB(-20-10*rng.Float64()))
			copy(channels[k][start:], burst)
			_ = b
		}
	}
	events := []floor.Event{{Kind: floor.Turn, Speaker: 1, Start: 1, End: 9, Words: 30}}
	before := features(t, channels, events, seconds, fps)
	for _, cutFrame := range []int{1, 250, 600, 1000} {
		changed := make([][]float32, len(channels))
		cut := int(math.Floor(float64(cutFrame) * audio.Rate / fps)) // samples heard by frame cutFrame-1
		for k, ch := range channels {
			changed[k] = slices.Clone(ch)
			loud := audio.WhiteNoise(rng, n-cut)
			audio.Gain(loud, audio.FromDB(-10))
			copy(changed[k][cut:], loud)
		}
		after := features(t, changed, events, seconds, fps)
		for name, tracks := range before {
			for k := range tracks {
				if !slices.Equal(tracks[k][:cutFrame], after[name][k][:cutFrame]) {
					t.Errorf("%s speaker %d: frames before %d change with audio after them", name, k+1, cutFrame)
				}
				if cutFrame < 1000 && slices.Equal(tracks[k], after[name][k]) && name == "energy" {
					t.Errorf("energy speaker %d: unchanged by louder audio after frame %d (the test cannot fail)", k+1, cutFrame)
				}
			}
		}
	}
}

func features(t *testing.T, channels [][]float32, events []floor.Event, seconds, fps float64) map[string][][]float64 {
	t.Helper()
	c := &detect.Conversation{ID: "c", SampleRate: audio.Rate, Duration: seconds, Channels: channels}
	fr, err := newFrames(context.Background(), c, events, fps)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][][]float64{}
	for _, f := range Features(true) {
		for k := range channels {
			out[f.Name] = append(out[f.Name], f.Track(fr, k))
		}
	}
	return out
}
