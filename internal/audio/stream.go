package audio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	goaudio "github.com/go-audio/audio"
	"github.com/go-audio/wav"
	"github.com/gopxl/beep/v2"
)

// blockFrames is how many frames a streaming read or write handles at a
// time: memory stays a few blocks whatever the length of the recording.
const blockFrames = 1 << 15

// MonoWAV reads a PCM WAV file of up to 8 channels block by block,
// averaging its channels into one as ReadWAVMono does.
type MonoWAV struct {
	f      *os.File
	d      *wav.Decoder
	nch    int
	bits   int
	scale  float32
	buf    *goaudio.IntBuffer
	carry  []int // samples read past the last whole frame
	spare  []int // carry's buffer
	read   int64
	Rate   int
	Frames int64 // frames the data chunk declares
}

// OpenWAVMono opens path for reading with MonoWAV. Errors name the file.
func OpenWAVMono(path string) (*MonoWAV, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	h, err := openPCM(f, 8)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &MonoWAV{f: f, d: h.d, nch: h.channels, bits: h.bits, scale: 1 / float32(int64(1)<<(h.bits-1)),
		buf: &goaudio.IntBuffer{Data: make([]int, h.channels*blockFrames)}, Rate: h.rate, Frames: h.samples / int64(h.channels)}, nil
}

// Read fills dst with up to len(dst) mono samples; it returns io.EOF after
// the last one. A truncated data chunk is an error naming the file.
func (m *MonoWAV) Read(dst []float32) (int, error) {
	n := 0
	for n < len(dst) {
		if len(m.carry) < m.nch {
			got, err := m.d.PCMBuffer(m.buf)
			if err != nil {
				return n, fmt.Errorf("%s: reading samples: %w", m.f.Name(), err)
			}
			if got == 0 {
				break
			}
			m.read += int64(got)
			if m.read > maxWAVSamples {
				return n, fmt.Errorf("%s: more than %d samples", m.f.Name(), maxWAVSamples)
			}
			// Keep the partial frame left over, then the new block, in
			// one buffer that is reused rather than grown.
			m.carry = append(m.spare[:0], m.carry...)
			m.carry = append(m.carry, m.buf.Data[:got]...)
			m.spare = m.carry[:0:cap(m.carry)]
			continue
		}
		frames := min(len(dst)-n, len(m.carry)/m.nch)
		for i := range frames {
			var sum float32
			for _, v := range m.carry[i*m.nch : (i+1)*m.nch] {
				if m.bits == 8 {
					v -= 128 // 8-bit WAV is unsigned
				}
				sum += float32(v) * m.scale
			}
			if m.nch > 1 {
				sum /= float32(m.nch)
			}
			dst[n+i] = sum
		}
		n += frames
		m.carry = m.carry[frames*m.nch:]
	}
	if n == 0 {
		if m.read < m.Frames*int64(m.nch) {
			return 0, fmt.Errorf("%s: truncated: data chunk declares %d samples, file holds %d", m.f.Name(), m.Frames*int64(m.nch), m.read)
		}
		return 0, io.EOF
	}
	return n, nil
}

// Close closes the file.
func (m *MonoWAV) Close() error { return m.f.Close() }

// ResampleWAVFile writes the mono mix of the WAV file src, resampled to
// rate `to`, as a PCM16 file dst of exactly n samples: clipped to full
// scale (resampling can overshoot it), then cut or padded with silence. It
// gives the samples Resample gives on the whole recording while holding a
// few blocks in memory, so a long or low-rate recording costs no more than
// a short one.
func ResampleWAVFile(dst, src string, to, n int) error {
	in, err := OpenWAVMono(src)
	if err != nil {
		return err
	}
	defer in.Close()
	want := int64(ResampledLength(in.Frames, in.Rate, to))
	var s beep.Streamer = &wavStreamer{in: in, buf: make([]float32, blockFrames)}
	if in.Rate != to {
		s = beep.Resample(resampleQuality, beep.SampleRate(in.Rate), beep.SampleRate(to), s)
	}
	w, err := CreateWAV(dst, to, n)
	if err != nil {
		return err
	}
	frames := make([][2]float64, blockFrames)
	out := make([]float32, blockFrames)
	written := int64(0)
	for written < want && written < int64(n) {
		got, ok := s.Stream(frames)
		got = int(min(int64(got), want-written, int64(n)-written))
		for i, f := range frames[:got] {
			out[i] = max(-1, min(float32(f[0]), 32767.0/32768))
		}
		if err := w.Write(out[:got]); err != nil {
			w.Close()
			return err
		}
		written += int64(got)
		if !ok || got == 0 {
			break
		}
	}
	if err := s.Err(); err != nil {
		w.Close()
		return err
	}
	return w.Close() // Close pads what is missing with silence
}

// wavStreamer feeds a MonoWAV to beep, which works on stereo frames; a read
// error ends the stream and is reported by Err.
type wavStreamer struct {
	in  *MonoWAV
	buf []float32
	err error
}

func (s *wavStreamer) Stream(frames [][2]float64) (int, bool) {
	if s.err != nil {
		return 0, false
	}
	n, err := s.in.Read(s.buf[:min(len(frames), len(s.buf))])
	if err != nil && !errors.Is(err, io.EOF) {
		s.err = err
	}
	if n == 0 {
		return 0, false
	}
	return copy2(frames, s.buf[:n]), true
}

func (s *wavStreamer) Err() error { return s.err }

// WAVWriter writes a mono PCM16 WAV file of a length given in advance,
// block by block.
type WAVWriter struct {
	f       *os.File
	bw      *bufio.Writer
	n, done int
}

// CreateWAV creates path with the header of an n-sample mono PCM16 file.
func CreateWAV(path string, rate, n int) (*WAVWriter, error) {
	if int64(n)*2 > 1<<32-1-36 {
		return nil, fmt.Errorf("%s: %d samples do not fit in one WAV file", path, n)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := &WAVWriter{f: f, bw: bufio.NewWriterSize(f, 1<<16), n: n}
	if err := writeHeader(w.bw, rate, n); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, nil
}

// Write appends samples, which must lie in [-1, 1], as EncodeWAV does.
func (w *WAVWriter) Write(samples []float32) error {
	if w.done+len(samples) > w.n {
		return fmt.Errorf("%s: more than the %d samples of its header", w.f.Name(), w.n)
	}
	var b [2]byte
	for i, s := range samples {
		if !(s >= -1 && s <= 1) {
			return fmt.Errorf("%s: sample %d is %g, outside [-1, 1]", w.f.Name(), w.done+i, s)
		}
		binary.LittleEndian.PutUint16(b[:], uint16(PCM16(s)))
		w.bw.Write(b[:])
	}
	w.done += len(samples)
	return nil
}

// Close pads the file with silence to the length of its header and closes it.
func (w *WAVWriter) Close() error {
	zero := make([]byte, 2*min(w.n-w.done, blockFrames))
	for w.done < w.n {
		k := min(w.n-w.done, blockFrames)
		w.bw.Write(zero[:2*k])
		w.done += k
	}
	err := w.bw.Flush()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", w.f.Name(), err)
	}
	return nil
}
