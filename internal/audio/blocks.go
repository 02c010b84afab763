package audio

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/gopxl/beep/v2"
	"github.com/mewkiz/flac"

	"github.com/floorbench/floorbench/internal/limits"
)

// blockFrames is how many frames a streaming read or write handles at a
// time: memory stays a few blocks whatever the length of the recording.
const blockFrames = 1 << 15

// Blocks decodes a WAV (integer PCM) or FLAC file held in memory block by
// block, one slice per channel, so that its samples are never all held at
// once. The format is told by the first bytes, as DecodeChannels does.
type Blocks struct {
	Rate     int
	Channels int
	// Frames is what the header declares (0 where a FLAC stream does not
	// say); a file holding fewer fails when read.
	Frames int64
	held   int64 // frames the stream's bytes can hold (WAV only)
	next   func() ([][]float32, error)
	close  func() error
}

// OpenBlocks checks the header of data and readies its first block.
func OpenBlocks(data []byte) (*Blocks, error) {
	switch {
	case bytes.HasPrefix(data, []byte("RIFF")):
		return wavBlocks(bytes.NewReader(data), maxChannels)
	case bytes.HasPrefix(data, []byte("fLaC")):
		return flacBlocks(data)
	case len(data) == 0:
		return nil, errors.New("no audio bytes")
	}
	return nil, errors.New("neither WAV nor FLAC (no RIFF or fLaC header)")
}

// OpenWAVBlocks opens a PCM WAV file of up to 8 channels and at most
// lim's source_bytes for reading block by block. Errors name the file;
// Close closes it.
func OpenWAVBlocks(path string, lim limits.Limits) (*Blocks, error) {
	f, err := lim.OpenSource(path)
	if err != nil {
		return nil, err
	}
	b, err := wavBlocks(f, maxChannels)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	next := b.next
	b.next = func() ([][]float32, error) {
		block, err := next()
		if err != nil && !errors.Is(err, io.EOF) {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return block, err
	}
	b.close = f.Close
	return b, nil
}

// Next returns the next block, valid until the following call, or io.EOF.
func (b *Blocks) Next() ([][]float32, error) { return b.next() }

// Close closes the file of OpenWAVBlocks (nothing for bytes in memory).
func (b *Blocks) Close() error {
	if b.close == nil {
		return nil
	}
	return b.close()
}

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

func wavBlocks(r io.ReadSeeker, maxChannels int) (*Blocks, error) {
	h, err := openPCM(r, maxChannels)
	if err != nil {
		return nil, err
	}
	nch := h.channels
	buf := make([]float32, nch*blockFrames)
	out := make([][]float32, nch)
	var carry []float32
	var read int64
	next := func() ([][]float32, error) {
		got := 1
		for got > 0 && len(carry) < nch {
			var err error
			if got, err = h.read(buf); err != nil {
				return nil, fmt.Errorf("reading samples: %w", err)
			}
			read += int64(got)
			if read > maxWAVSamples {
				return nil, fmt.Errorf("more than %d samples", maxWAVSamples)
			}
			carry = append(carry, buf[:got]...)
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
			out[i%nch] = append(out[i%nch], v)
		}
		carry = append(carry[:0], carry[frames*nch:]...)
		return out, nil
	}
	return &Blocks{Rate: h.rate, Channels: nch, Frames: h.samples / int64(nch), held: h.held / int64(nch), next: next}, nil
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
	return &Blocks{Rate: int(info.SampleRate), Channels: nch, Frames: int64(info.NSamples), next: next}, nil
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
	return resampleInto(&blockStreamer{b: b}, dsts, to, min(want, n), n, 1)
}

// ResampleWAVFile writes the mono mix of the WAV file src (its channels
// averaged, as ReadWAVMono does), resampled to rate `to`, as a PCM16 file
// dst of exactly n samples: clipped to full scale (resampling can
// overshoot it), then cut or padded with silence. It gives the samples
// Resample gives on the whole recording while holding a few blocks in
// memory, so a long or low-rate recording costs no more than a short one.
// src holds at most lim's source_bytes.
func ResampleWAVFile(dst, src string, to, n int, lim limits.Limits) error {
	b, err := OpenWAVBlocks(src, lim)
	if err != nil {
		return err
	}
	defer b.Close()
	want := ResampledLength(b.Frames, b.Rate, to)
	return resampleInto(&blockStreamer{b: b, mix: true}, []string{dst}, to, min(want, n), n, 32767.0/32768)
}

// resampleInto streams src through beep's resampler into the files dsts
// (channel k of the stream into dsts[k]) of n samples each, of which the
// first limit are resampled and clipped to [-1, top], the rest silence.
func resampleInto(src *blockStreamer, dsts []string, to, limit, n int, top float32) error {
	var s beep.Streamer = src
	if src.b.Rate != to {
		// beep resamples the two channels of a frame independently, so
		// a stereo stream gives each channel what it would alone.
		s = beep.Resample(resampleQuality, beep.SampleRate(src.b.Rate), beep.SampleRate(to), s)
	}
	writers := make([]*WAVWriter, 0, len(dsts))
	fail := func(err error) error {
		for _, w := range writers {
			w.f.Close()
		}
		return err
	}
	for _, dst := range dsts {
		w, err := CreateWAV(dst, to, n)
		if err != nil {
			return fail(err)
		}
		writers = append(writers, w)
	}
	frames := make([][2]float64, blockFrames)
	out := make([]float32, blockFrames)
	for written := 0; written < limit; {
		got, ok := s.Stream(frames)
		got = min(got, limit-written)
		for k, w := range writers {
			for i, f := range frames[:got] {
				out[i] = max(-1, min(float32(f[k]), top))
			}
			if err := w.Write(out[:got]); err != nil {
				return fail(err)
			}
		}
		written += got
		if !ok || got == 0 {
			break
		}
	}
	if src.err != nil {
		return fail(src.err)
	}
	for _, w := range writers {
		if err := w.Close(); err != nil { // pads what is missing with silence
			return err
		}
	}
	return nil
}

// blockStreamer feeds Blocks to beep as stereo frames: a mono stream in
// both halves, or with mix the average of all channels in both. A decoding
// error ends the stream and is kept in err.
type blockStreamer struct {
	b       *Blocks
	mix     bool
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
		if s.mix && last > 0 {
			var sum float32 // as downmix sums, in float32 and channel order
			for _, c := range s.pending {
				sum += c[i]
			}
			m := float64(sum / float32(len(s.pending)))
			frames[i] = [2]float64{m, m}
			continue
		}
		frames[i] = [2]float64{float64(s.pending[0][i]), float64(s.pending[last][i])}
	}
	for k := range s.pending {
		s.pending[k] = s.pending[k][n:]
	}
	return n, true
}

func (s *blockStreamer) Err() error { return s.err }
