package audio

import (
	"errors"
	"io"

	"github.com/gopxl/beep/v2"
)

// MonoReader reads a mono PCM WAV stream at another rate a block at a
// time: its samples, joined, are those Resample gives on what DecodeWAV
// gives, bit for bit (the same decoding, beep's same resampler fed the
// same samples, the same length with the same silence at the end), while
// it holds a few blocks whatever the recording's length.
type MonoReader struct {
	blocks    *Blocks
	src       *fullStreamer
	beep      beep.Streamer // the resampler; nil at equal rates
	frames    [][2]float64
	resampled []float32 // the resampler's last output
	pending   []float32 // samples decoded or resampled, not yet read
	left      int       // samples still to give (resampled: of Len)
	n         int
}

// NewMonoReader reads the mono PCM WAV stream r at rate to; Len is how
// many samples it gives.
func NewMonoReader(r io.ReadSeeker, to int) (*MonoReader, error) {
	b, err := wavBlocks(r, 1)
	if err != nil {
		return nil, err
	}
	m := &MonoReader{blocks: b, src: &fullStreamer{b: b}}
	m.n = int(b.held)
	if b.Rate != to && b.held > 0 {
		m.n = ResampledLength(b.held, b.Rate, to)
		m.beep = beep.Resample(resampleQuality, beep.SampleRate(b.Rate), beep.SampleRate(to), m.src)
		m.frames = make([][2]float64, 4096)
	}
	m.left = m.n
	return m, nil
}

// Len is how many samples the reader gives: what the data chunk holds,
// resampled.
func (m *MonoReader) Len() int { return m.n }

// Read fills p with the next samples, or as many as are left, and returns
// io.EOF once none are; a decoding error (a truncated file) is returned
// as it is met.
func (m *MonoReader) Read(p []float32) (int, error) {
	n := 0
	for n < len(p) {
		if len(m.pending) == 0 {
			if err := m.fill(); err != nil {
				if errors.Is(err, io.EOF) && n > 0 {
					return n, nil
				}
				return n, err
			}
		}
		k := copy(p[n:], m.pending)
		m.pending, n = m.pending[k:], n+k
	}
	return n, nil
}

// fill makes the next samples pending.
func (m *MonoReader) fill() error {
	if m.beep == nil {
		block, err := m.blocks.Next()
		if err != nil {
			return err
		}
		m.pending = block[0]
		return nil
	}
	if m.left == 0 {
		return io.EOF
	}
	got, _ := m.beep.Stream(m.frames[:min(len(m.frames), m.left)])
	if m.src.err != nil {
		return m.src.err
	}
	out := m.resampled[:0]
	for _, f := range m.frames[:got] {
		out = append(out, float32(f[0]))
	}
	if got == 0 {
		// Resample pads what the resampler did not give with silence.
		out = append(out, make([]float32, min(len(m.frames), m.left))...)
	}
	m.resampled = out
	m.pending, m.left = out, m.left-len(out)
	return nil
}

// fullStreamer feeds a mono Blocks stream to beep, filling every buffer it
// is given until the stream ends: beep's resampler takes a short read for
// the end. A decoding error ends the stream and is kept in err.
type fullStreamer struct {
	b       *Blocks
	pending []float32
	done    bool
	err     error
}

func (s *fullStreamer) Stream(frames [][2]float64) (int, bool) {
	n := 0
	for n < len(frames) && !s.done {
		if len(s.pending) == 0 {
			block, err := s.b.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					s.err = err
				}
				s.done = true
				break
			}
			s.pending = block[0]
			continue
		}
		k := min(len(frames)-n, len(s.pending))
		for i, v := range s.pending[:k] {
			frames[n+i] = [2]float64{float64(v), float64(v)}
		}
		s.pending, n = s.pending[k:], n+k
	}
	return n, n > 0
}

func (s *fullStreamer) Err() error { return s.err }
