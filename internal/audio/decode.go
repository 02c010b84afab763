package audio

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/mewkiz/flac"
)

// maxChannels is the most channels DecodeChannels accepts (FLAC's limit).
const maxChannels = 8

// DecodeChannels decodes a WAV (integer PCM) or FLAC file held in memory
// into one slice per channel at the file's own rate. The format is told by
// the first bytes ("RIFF" or "fLaC"), not by a file name.
func DecodeChannels(data []byte) (channels [][]float32, rate int, err error) {
	switch {
	case bytes.HasPrefix(data, []byte("RIFF")):
		return DecodeWAVChannels(bytes.NewReader(data), maxChannels)
	case bytes.HasPrefix(data, []byte("fLaC")):
		return DecodeFLAC(bytes.NewReader(data))
	case len(data) == 0:
		return nil, 0, errors.New("no audio bytes")
	}
	return nil, 0, errors.New("neither WAV nor FLAC (no RIFF or fLaC header)")
}

// DecodeFLAC decodes a FLAC stream with github.com/mewkiz/flac. The
// decoder is given outside input, so a panic inside it is returned as an
// error rather than taking the process down.
func DecodeFLAC(r io.Reader) (channels [][]float32, rate int, err error) {
	defer func() {
		if p := recover(); p != nil {
			channels, rate, err = nil, 0, fmt.Errorf("corrupt FLAC data (decoder: %v)", p)
		}
	}()
	s, err := flac.New(r)
	if err != nil {
		return nil, 0, fmt.Errorf("not a readable FLAC stream: %w", err)
	}
	info := s.Info
	if info.SampleRate < 1000 || info.SampleRate > 192000 {
		return nil, 0, fmt.Errorf("implausible sample rate %d Hz", info.SampleRate)
	}
	if info.BitsPerSample < 4 || info.BitsPerSample > 32 {
		return nil, 0, fmt.Errorf("unsupported bit depth %d", info.BitsPerSample)
	}
	nch := int(info.NChannels)
	channels = make([][]float32, nch)
	scale := 1 / float32(int64(1)<<(info.BitsPerSample-1))
	for total := 0; ; {
		f, err := s.ParseNext()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, fmt.Errorf("FLAC frame after %d samples: %w", total, err)
		}
		if len(f.Subframes) != nch {
			return nil, 0, fmt.Errorf("FLAC frame after %d samples has %d channels, the stream %d", total, len(f.Subframes), nch)
		}
		for k, sf := range f.Subframes {
			for _, v := range sf.Samples[:min(int(sf.NSamples), len(sf.Samples))] {
				channels[k] = append(channels[k], float32(v)*scale)
			}
		}
		if total = len(channels[0]); total > maxWAVSamples {
			return nil, 0, fmt.Errorf("more than %d samples", maxWAVSamples)
		}
	}
	if info.NSamples != 0 && uint64(len(channels[0])) != info.NSamples {
		return nil, 0, fmt.Errorf("truncated: stream declares %d samples, holds %d", info.NSamples, len(channels[0]))
	}
	return channels, int(info.SampleRate), nil
}
