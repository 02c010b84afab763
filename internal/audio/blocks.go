package audio

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	goaudio "github.com/go-audio/audio"
	"github.com/gopxl/beep/v2"
	"github.com/mewkiz/flac"
)

// Blocks decodes a WAV (integer PCM) or FLAC file held in memory block by
// block, one slice per channel, so that its samples are never all held at
// once. The format is told by the first bytes, as DecodeChannels does.
type Blocks struct {
	Rate     int
	Channels int
	next     func() ([][]float32, error)
}

// OpenBlocks checks the header of data and readies its first block.
func OpenBlocks(data []byte) (*Blocks, error) {
	switch {
	case bytes.HasPrefix(data, []byte("RIFF")):
		return wavBlocks(data)
	case bytes.HasPrefix(data, []byte("fLaC")):
		return flacBlocks(data)
	case len(data) == 0:
		return nil, errors.New("no audio bytes")
	}
	return nil, fmt.Errorf("neither WAV nor FLAC (starts with %q)", data[:min(4, len(data))])
}

// Next returns the next block, valid until the following call, or io.EOF.
func (b *Blocks) Next() ([][]float32, error) { return b.next() }

// CountFrames decodes every block of data and returns its rate, channels
// and frames: a corrupt or truncated file fails here, before anything is
// written, as it failed when decoded whole.
func CountFrames(data []byte) (rate, channels int, frames int64, err error) {
	b, err := OpenBlocks(data)
	if err != nil {
		return 0, 0, 0, err
	}
	for {
		block, err := b.Next()
		if errors.Is(err, io.EOF) {
			return b.Rate, b.Channels, frames, nil
		}
		if err != nil {
			return 0, 0, 0, err
		}
		frames += int64(len(block[0]))
	}
}

func wavBlocks(data []byte) (*Blocks, error) {
	h, err := openPCM(bytes.NewReader(data), maxChannels)
	if err != nil {
		return nil, err
	}
	nch := h.channels
	scale := 1 / float32(int64(1)<<(h.bits-1))
	buf := &goaudio.IntBuffer{Data: make([]int, nch*blockFrames)}
	out := make([][]float32, nch)
	var carry []int
	var read int64
	next := func() ([][]float32, error) {
		got := 1
		for got > 0 && len(carry) < nch {
			var err error
			if got, err = h.d.PCMBuffer(buf); err != nil {
				return nil, fmt.Errorf("reading samples: %w", err)
			}
			read += int64(got)
			if read > maxWAVSamples {
				return nil, fmt.Errorf("more than %d samples", maxWAVSamples)
			}
			carry = append(carry, buf.Data[:got]...)
		}
		frames := len(carry) / nch
		if frames == 0 {
			if read < h.samples {
				return nil, fmt.Errorf("truncated: data chunk declares %d samples, file holds %d", h.samples, read)
			}
			// A trailing partial frame (fewer samples than channels) is dropped.
			return nil, io.EOF
		}
		for k := range out {
			out[k] = out[k][:0]
		}
		for i, v := range carry[:frames*nch] {
			if h.bits == 8 {
				v -= 128 // 8-bit WAV is unsigned
			}
			out[i%nch] = append(out[i%nch], float32(v)*scale)
		}
		carry = append(carry[:0], carry[frames*nch:]...)
		return out, nil
	}
	return &Blocks{Rate: h.rate, Channels: nch, next: next}, nil
}

// flacBlocks decodes FLAC frame by frame with github.com/mewkiz/flac; a
// panic inside the decoder, which is given outside input, is an error.
func flacBlocks(data []byte) (b *Blocks, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, fmt.Errorf("corrupt FLAC data (decoder: %v)", p)
		}
	}()
	s, err := flac.New(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not a readable FLAC stream: %w", err)
	}
	info := s.Info
	if info.SampleRate < 1000 || info.SampleRate > 192000 {
		return nil, fmt.Errorf("implausible sample rate %d Hz", info.SampleRate)
	}
	if info.BitsPerSample < 4 || info.BitsPerSample > 32 {
		return nil, fmt.Errorf("unsupported bit depth %d", info.BitsPerSample)
	}
	nch := int(info.NChannels)
	scale := 1 / float32(int64(1)<<(info.BitsPerSample-1))
	out := make([][]float32, nch)
	var total int64
	next := func() (block [][]float32, err error) {
		defer func() {
			if p := recover(); p != nil {
				block, err = nil, fmt.Errorf("corrupt FLAC data (decoder: %v)", p)
			}
		}()
		f, err := s.ParseNext()
		if errors.Is(err, io.EOF) {
			if info.NSamples != 0 && uint64(total) != info.NSamples {
				return nil, fmt.Errorf("truncated: stream declares %d samples, holds %d", info.NSamples, total)
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, fmt.Errorf("FLAC frame after %d samples: %w", total, err)
		}
		if len(f.Subframes) != nch {
			return nil, fmt.Errorf("FLAC frame after %d samples has %d channels, the stream %d", total, len(f.Subframes), nch)
		}
		for k, sf := range f.Subframes {
			out[k] = out[k][:0]
			for _, v := range sf.Samples[:min(int(sf.NSamples), len(sf.Samples))] {
				out[k] = append(out[k], float32(v)*scale)
			}
		}
		if total += int64(len(out[0])); total > maxWAVSamples {
			return nil, fmt.Errorf("more than %d samples", maxWAVSamples)
		}
		return out, nil
	}
	return &Blocks{Rate: int(info.SampleRate), Channels: nch, next: next}, nil
}

// ResampleToWAV decodes data (one or two channels) and writes channel k,
// resampled to rate `to` and clipped to [-1, 1], as the mono PCM16 file
// dsts[k] of n samples: its first min(want, n) samples are resampled, the
// rest silence, where want is the resampled length of the channel
// (ResampledLength of the frames CountFrames gives). The samples are those
// Resample gives on the whole channel; memory is a few blocks.
func ResampleToWAV(data []byte, dsts []string, to, want, n int) error {
	b, err := OpenBlocks(data)
	if err != nil {
		return err
	}
	if b.Channels != len(dsts) || b.Channels > 2 {
		return fmt.Errorf("audio has %d channels, want %d", b.Channels, len(dsts))
	}
	src := &blockStreamer{b: b}
	var s beep.Streamer = src
	if b.Rate != to {
		// beep resamples the two channels of a frame independently, so
		// a stereo stream gives each channel what it would alone.
		s = beep.Resample(resampleQuality, beep.SampleRate(b.Rate), beep.SampleRate(to), s)
	}
	writers := make([]*WAVWriter, len(dsts))
	closeAll := func() {
		for _, w := range writers {
			if w != nil {
				w.f.Close()
			}
		}
	}
	for k, dst := range dsts {
		if writers[k], err = CreateWAV(dst, to, n); err != nil {
			closeAll()
			return err
		}
	}
	frames := make([][2]float64, blockFrames)
	out := make([]float32, blockFrames)
	limit := min(want, n)
	for written := 0; written < limit; {
		got, ok := s.Stream(frames)
		got = min(got, limit-written)
		for k, w := range writers {
			for i, f := range frames[:got] {
				out[i] = max(-1, min(1, float32(f[k])))
			}
			if err := w.Write(out[:got]); err != nil {
				closeAll()
				return err
			}
		}
		written += got
		if !ok || got == 0 {
			break
		}
	}
	if src.err != nil {
		closeAll()
		return src.err
	}
	for _, w := range writers {
		if err := w.Close(); err != nil {
			return err
		}
	}
	return nil
}

// blockStreamer feeds Blocks to beep as stereo frames (a mono stream in
// both halves); a decoding error ends the stream and is kept in err.
type blockStreamer struct {
	b       *Blocks
	pending [][]float32
	err     error
}

func (s *blockStreamer) Stream(frames [][2]float64) (int, bool) {
	for s.err == nil && (len(s.pending) == 0 || len(s.pending[0]) == 0) {
		block, err := s.b.Next()
		if errors.Is(err, io.EOF) {
			return 0, false
		}
		if err != nil {
			s.err = err
			return 0, false
		}
		s.pending = append(s.pending[:0], block...) // keep the decoder's slices whole for reuse
	}
	if s.err != nil {
		return 0, false
	}
	n := min(len(frames), len(s.pending[0]))
	last := len(s.pending) - 1
	for i := range n {
		frames[i] = [2]float64{float64(s.pending[0][i]), float64(s.pending[last][i])}
	}
	for k := range s.pending {
		s.pending[k] = s.pending[k][n:]
	}
	return n, true
}

func (s *blockStreamer) Err() error { return s.err }
