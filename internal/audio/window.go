package audio

import (
	"errors"
	"io"
)

// PCMFile is a mono integer-PCM WAV file read in place: a window of its
// samples is read without reading the rest of the file, so a reader that
// needs a second of an hour-long channel reads a second of it.
type PCMFile struct {
	r      io.ReaderAt
	Rate   int
	Frames int64 // samples the file holds
	bits   int
	offset int64 // where the samples start
}

// ReadSeekerAt is what OpenPCMFile reads: a file, a stored object, bytes.
type ReadSeekerAt interface {
	io.ReadSeeker
	io.ReaderAt
}

// OpenPCMFile checks r's header as every WAV reader does (integer PCM,
// mono, a plausible rate and size) and returns where its samples are.
func OpenPCMFile(r ReadSeekerAt) (*PCMFile, error) {
	h, err := openPCM(r, 1)
	if err != nil {
		return nil, err
	}
	return &PCMFile{r: r, Rate: h.rate, Frames: h.held, bits: h.bits, offset: h.offset}, nil
}

// Window reads n samples from sample from on (fewer at the end of the
// file, none before its start), scaled to [-1, 1).
func (f *PCMFile) Window(from, n int64) ([]float32, error) {
	if from < 0 {
		n, from = n+from, 0
	}
	from = min(from, f.Frames)
	n = max(0, min(n, f.Frames-from))
	width := int64(f.bits / 8)
	h := &pcmStream{data: io.NewSectionReader(f.r, f.offset+from*width, n*width), channels: 1, bits: f.bits}
	out := make([]float32, n)
	for got := int64(0); got < n; {
		m, err := h.read(out[got:])
		if err != nil {
			return nil, err
		}
		if m == 0 {
			return nil, errors.New("the WAV file ends before its data chunk says")
		}
		got += int64(m)
	}
	return out, nil
}
