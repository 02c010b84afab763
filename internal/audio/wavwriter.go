package audio

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
)

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
