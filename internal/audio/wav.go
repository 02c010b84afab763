package audio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/go-audio/wav"
)

// Rate is the sample rate of every generated channel (docs/formats.md#channels).
const Rate = 16000

// maxWAVSamples bounds what one read will allocate: a header can claim any
// size, and a file from outside must not make the reader exhaust memory.
// Ten hours at 48 kHz is far beyond any conversation.
const maxWAVSamples = 10 * 3600 * 48000

// ReadWAV reads a mono PCM WAV file (8, 16, 24 or 32 bit) at its own rate.
// Every failure is one error that names the file.
func ReadWAV(path string) (samples []float32, rate int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	samples, rate, err = DecodeWAV(f)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return samples, rate, nil
}

// ReadWAV16k reads a mono WAV file and resamples it to 16 kHz when it was
// recorded at another rate.
func ReadWAV16k(path string) ([]float32, error) {
	x, rate, err := ReadWAV(path)
	if err != nil {
		return nil, err
	}
	return Resample(x, rate, Rate), nil
}

// DecodeWAV reads a mono PCM WAV stream. It reads the data in blocks, so a
// file is never held twice in memory.
func DecodeWAV(r io.ReadSeeker) (samples []float32, rate int, err error) {
	chans, rate, err := decodeWAV(r, 1)
	if err != nil {
		return nil, 0, err
	}
	return chans[0], rate, nil
}

// WAVSeconds reads a mono PCM WAV stream's header, and nothing of its
// samples, and returns how long the samples it holds last (what the data
// chunk declares, or less when the stream is shorter). It leaves r at its
// start, so that a decoder can read what the header promised was short
// enough.
func WAVSeconds(r io.ReadSeeker) (float64, error) {
	h, err := openPCM(r, 1)
	if err != nil {
		return 0, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	return float64(h.held) / float64(h.rate), nil
}

// DecodeWAVChannels reads a PCM WAV stream of one or more channels (at
// most maxChannels) and returns one slice per channel.
func DecodeWAVChannels(r io.ReadSeeker, maxChannels int) (channels [][]float32, rate int, err error) {
	return decodeWAV(r, maxChannels)
}

// ReadWAVMono reads a PCM WAV file of up to 8 channels at its own rate and
// averages its channels into one (recordings from outside, such as AMI's
// headset files, are not always mono).
func ReadWAVMono(path string) (samples []float32, rate int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	chans, rate, err := decodeWAV(f, 8)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return downmix(chans), rate, nil
}

// downmix averages channels into the first one.
func downmix(chans [][]float32) []float32 {
	out := chans[0]
	if len(chans) == 1 {
		return out
	}
	for i := range out {
		var sum float32
		for _, c := range chans {
			sum += c[i]
		}
		out[i] = sum / float32(len(chans))
	}
	return out
}

// pcmStream is an open WAV stream positioned at its samples.
type pcmStream struct {
	data     io.Reader
	channels int
	bits     int
	rate     int
	samples  int64 // samples (of all channels) the data chunk declares
	held     int64 // of those, how many the stream's bytes can hold
	raw      []byte
	partial  int   // bytes of a split sample kept at the start of raw
	offset   int64 // where the samples start in the file
}

// read decodes the next interleaved samples into dst, scaled to [-1, 1),
// and returns how many it decoded (0 at the end of the data chunk; a
// trailing partial sample is dropped). go-audio parses the header
// (openPCM); the samples are converted here in one loop per bit depth.
// go-audio's PCMBuffer reads every sample through a bytes.Reader and a
// function value: it took a quarter of a sweep's CPU, and a file reads 3
// to 7 times faster this way (BenchmarkReadWAV, docs/performance.md#corpus-generation).
func (h *pcmStream) read(dst []float32) (int, error) {
	width := h.bits / 8
	if want := len(dst) * width; len(h.raw) < want {
		h.raw = append(h.raw[:h.partial], make([]byte, want-h.partial)...)
	}
	// At least the rest of one sample, so that a short read is never
	// taken for the end of the data.
	m, err := io.ReadAtLeast(h.data, h.raw[h.partial:len(dst)*width], width-h.partial)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil
	}
	if err != nil {
		return 0, err
	}
	m += h.partial
	n := m / width
	raw := h.raw[:n*width]
	scale := 1 / float32(int64(1)<<(h.bits-1))
	switch h.bits {
	case 8: // unsigned
		for i, b := range raw {
			dst[i] = float32(int(b)-128) * scale
		}
	case 16:
		for i := range n {
			dst[i] = float32(int16(binary.LittleEndian.Uint16(raw[2*i:]))) * scale
		}
	case 24:
		for i := range n {
			b := raw[3*i : 3*i+3]
			dst[i] = float32(int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24)>>8) * scale
		}
	case 32:
		for i := range n {
			dst[i] = float32(int32(binary.LittleEndian.Uint32(raw[4*i:]))) * scale
		}
	}
	h.partial = copy(h.raw, h.raw[n*width:m])
	return n, nil
}

// openPCM checks a WAV stream's header (integer PCM, at most maxChannels
// channels, a plausible rate and size) and positions it at its samples.
func openPCM(r io.ReadSeeker, maxChannels int) (*pcmStream, error) {
	if err := checkChunks(r); err != nil {
		return nil, err
	}
	d := wav.NewDecoder(r)
	d.ReadInfo()
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("not a readable WAV file: %w", err)
	}
	if !d.IsValidFile() {
		return nil, errors.New("not a valid WAV file (bad RIFF/WAVE header or fmt chunk)")
	}
	if d.WavAudioFormat != 1 {
		return nil, fmt.Errorf("unsupported WAV encoding %d (want integer PCM)", d.WavAudioFormat)
	}
	nch := int(d.NumChans)
	if maxChannels == 1 && nch != 1 {
		return nil, fmt.Errorf("%d channels (want mono: one file per speaker)", d.NumChans)
	}
	if nch < 1 || nch > maxChannels {
		return nil, fmt.Errorf("%d channels (want 1 to %d)", nch, maxChannels)
	}
	if d.SampleRate < 1000 || d.SampleRate > 192000 {
		return nil, fmt.Errorf("implausible sample rate %d Hz", d.SampleRate)
	}
	bits := int(d.BitDepth)
	if bits != 8 && bits != 16 && bits != 24 && bits != 32 {
		return nil, fmt.Errorf("unsupported bit depth %d", bits)
	}
	if err := d.FwdToPCM(); err != nil {
		return nil, fmt.Errorf("no data chunk: %w", err)
	}
	declared := int64(d.PCMSize) / int64(bits/8)
	if declared > maxWAVSamples {
		return nil, fmt.Errorf("data chunk claims %d samples, more than the %d this reader accepts", declared, maxWAVSamples)
	}
	// What the stream can still hold bounds what a reader allocates: a
	// header may claim far more than the file has.
	here, err := r.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	end, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, err
	}
	if _, err := r.Seek(here, io.SeekStart); err != nil {
		return nil, err
	}
	// go-audio's data chunk reader ends with the chunk.
	return &pcmStream{data: d.PCMChunk.R, channels: nch, bits: bits, rate: int(d.SampleRate),
		samples: declared, held: min(declared, (end-here)/int64(bits/8)), offset: here}, nil
}

func decodeWAV(r io.ReadSeeker, maxChannels int) (channels [][]float32, rate int, err error) {
	b, err := wavBlocks(r, maxChannels)
	if err != nil {
		return nil, 0, err
	}
	channels = make([][]float32, b.Channels)
	for k := range channels {
		channels[k] = make([]float32, 0, b.held)
	}
	for {
		block, err := b.Next()
		if errors.Is(err, io.EOF) {
			return channels, b.Rate, nil
		}
		if err != nil {
			return nil, 0, err
		}
		for k := range channels {
			channels[k] = append(channels[k], block[k]...)
		}
	}
}

// WriteWAV writes samples as a mono PCM16 WAV file. Values outside [-1, 1]
// are an error rather than silently clipped: the generator promises no
// clipping (docs/architecture.md#generator, stage 5).
func WriteWAV(path string, samples []float32, rate int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := EncodeWAV(f, samples, rate); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// EncodeWAV writes the canonical 44-byte PCM16 header and the samples. The
// header is written here rather than by go-audio's encoder, which converts
// one sample per call (about 90 ns a sample, minutes on a full corpus);
// go-audio's decoder reads the result back in the tests.
func EncodeWAV(w io.Writer, samples []float32, rate int) error {
	if int64(len(samples))*2 > math.MaxUint32-36 {
		return fmt.Errorf("%d samples do not fit in one WAV file", len(samples))
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := writeHeader(bw, rate, len(samples)); err != nil {
		return err
	}
	var b [2]byte
	for i, s := range samples {
		if !(s >= -1 && s <= 1) {
			return fmt.Errorf("sample %d is %g, outside [-1, 1]", i, s)
		}
		binary.LittleEndian.PutUint16(b[:], uint16(PCM16(s)))
		bw.Write(b[:])
	}
	return bw.Flush()
}

// writeHeader writes the canonical 44-byte header of an n-sample mono
// PCM16 file.
func writeHeader(w io.Writer, rate, n int) error {
	data := uint32(2 * n)
	header := []any{
		[4]byte{'R', 'I', 'F', 'F'}, 36 + data, [4]byte{'W', 'A', 'V', 'E'},
		[4]byte{'f', 'm', 't', ' '}, uint32(16), uint16(1), uint16(1),
		uint32(rate), uint32(2 * rate), uint16(2), uint16(16),
		[4]byte{'d', 'a', 't', 'a'}, data,
	}
	for _, v := range header {
		if err := binary.Write(w, binary.LittleEndian, v); err != nil {
			return err
		}
	}
	return nil
}

// PCM16 quantises one sample to 16 bits, rounding to nearest; the reader
// divides by the same 32768, so a read-write round trip is exact.
func PCM16(s float32) int16 {
	v := math.Round(float64(s) * 32768)
	return int16(max(-32768, min(32767, v)))
}

// checkChunks walks the RIFF chunk headers and rejects any chunk that claims
// more bytes than the file holds, then rewinds. go-audio allocates what a
// fmt chunk claims before reading it, so a hostile header would otherwise
// cost gigabytes; with this check no allocation exceeds the file's size.
func checkChunks(r io.ReadSeeker) error {
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return err
	}
	var head [12]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return errors.New("not a WAV file: shorter than a RIFF header")
	}
	if string(head[0:4]) != "RIFF" || string(head[8:12]) != "WAVE" {
		return errors.New("not a WAV file: no RIFF/WAVE header")
	}
	fmtSeen := false
	for pos := int64(12); pos+8 <= size; {
		var ch [8]byte
		if _, err := r.Seek(pos, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			return err
		}
		id, n := string(ch[0:4]), int64(binary.LittleEndian.Uint32(ch[4:8]))
		if pos+8+n > size {
			return fmt.Errorf("chunk %q at byte %d claims %d bytes, past the end of the %d-byte file", id, pos, n, size)
		}
		switch id {
		case "fmt ":
			if n < 16 || n > 64 {
				return fmt.Errorf("fmt chunk of %d bytes (want 16 to 64)", n)
			}
			fmtSeen = true
		case "LIST":
			if err := checkInfoList(r, pos+8, n+n%2); err != nil {
				return fmt.Errorf("LIST chunk at byte %d: %w", pos, err)
			}
		case "data":
			if !fmtSeen {
				return errors.New("data chunk before the fmt chunk")
			}
			_, err := r.Seek(0, io.SeekStart)
			return err
		}
		pos += 8 + n + n%2
	}
	return errors.New("no data chunk")
}

// checkInfoList checks that every entry of an INFO list (the body of n
// bytes at start) fits in the list: go-audio allocates each entry's
// claimed size before reading it, so a hostile 4 GB claim in a small file
// would exhaust memory.
func checkInfoList(r io.ReadSeeker, start, n int64) error {
	var kind [4]byte
	if _, err := r.Seek(start, io.SeekStart); err != nil {
		return err
	}
	if n < 4 {
		return nil
	}
	if _, err := io.ReadFull(r, kind[:]); err != nil {
		return err
	}
	if string(kind[:]) != "INFO" {
		return nil // go-audio skips other lists whole
	}
	for pos := int64(4); pos+8 <= n; {
		var h [8]byte
		if _, err := r.Seek(start+pos, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return err
		}
		size := int64(binary.LittleEndian.Uint32(h[4:]))
		if pos+8+size > n {
			return fmt.Errorf("INFO entry %q claims %d bytes, past the list's end", h[:4], size)
		}
		pos += 8 + size + size%2
	}
	return nil
}
