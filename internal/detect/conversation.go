package detect

import (
	"fmt"
	"math"
)

// SampleRate is the rate of the audio detectors read, in Hz. Corpora at other
// rates are resampled when read (docs/formats.md#channels), before they reach a detector.
const SampleRate = 16000

// Conversation is the audio one detector call reads: one channel per speaker
// on a common timeline.
type Conversation struct {
	ID         string
	SampleRate int
	// Duration in seconds decides the grid: floor(Duration*fps) frames per
	// speaker. Samples past it are ignored; missing samples before it are
	// silence.
	Duration float64
	// Channels[k] is speaker k+1's channel, samples in [-1, 1]; nil where
	// Open gives them.
	Channels [][]float32
	// Speakers and Open stand for Channels where it is nil: Open(k) opens
	// speaker k+1's channel to read in order, so that a model stage holds
	// a window of each channel, not the whole (fromcorpus.Stream).
	Speakers int
	Open     func(k int) (ChannelReader, error)
}

// ChannelReader reads one channel's samples in order: Read fills p, or
// as much of it as is left, and returns io.EOF once nothing is. Its
// errors, and Open's, name the conversation and the channel's file.
type ChannelReader interface {
	Read(p []float32) (int, error)
	Close() error
}

func (c *Conversation) check() error {
	if c.SampleRate != SampleRate {
		return fmt.Errorf("conversation %q: audio at %d Hz; detectors read %d Hz (resample when reading)", c.ID, c.SampleRate, SampleRate)
	}
	if c.speakers() == 0 {
		return fmt.Errorf("conversation %q: no speaker channels", c.ID)
	}
	if !(c.Duration >= 0) || math.IsInf(c.Duration, 0) {
		return fmt.Errorf("conversation %q: duration must be finite and >= 0, got %v", c.ID, c.Duration)
	}
	return nil
}

// speakers is the number of speaker channels.
func (c *Conversation) speakers() int {
	if c.Channels == nil && c.Open != nil {
		return c.Speakers
	}
	return len(c.Channels)
}

// heardSamples is the number of samples of the conversation's timeline.
func (c *Conversation) heardSamples() int { return samplesIn(c.Duration) }

// samplesIn is the number of samples of a timeline of duration seconds.
func samplesIn(duration float64) int { return int(math.Floor(duration * SampleRate)) }

// timeline returns every channel cut or zero-padded to heardSamples, so that
// detectors never read past the conversation's duration.
func (c *Conversation) timeline() [][]float32 {
	n := c.heardSamples()
	out := make([][]float32, len(c.Channels))
	for k, ch := range c.Channels {
		if len(ch) >= n {
			out[k] = ch[:n:n]
			continue
		}
		padded := make([]float32, n)
		copy(padded, ch)
		out[k] = padded
	}
	return out
}

// frameCount is the number of grid frames: floor(duration * fps), as
// score.FrameCount.
func frameCount(duration, fps float64) int { return int(math.Floor(duration * fps)) }

// heardBy is the number of samples heard by the end of grid frame i, the
// frame's commit time (i+1)/fps.
func heardBy(i int, fps float64) int {
	return int(math.Floor(float64(i+1) * SampleRate / fps))
}
