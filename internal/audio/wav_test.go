package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-audio/wav"
)

func sine(freq float64, rate, n int, amp float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return x
}

func TestWAVRoundTripIsExactOnPCM16Values(t *testing.T) {
	x := sine(440, Rate, 1601, 0.9)
	x = append(x, -1, 1, 0)
	for i := range x {
		x[i] = float32(PCM16(x[i])) / 32768
	}
	x[len(x)-2] = 32767.0 / 32768
	path := filepath.Join(t.TempDir(), "a.wav")
	if err := WriteWAV(path, x, Rate); err != nil {
		t.Fatal(err)
	}
	y, rate, err := ReadWAV(path)
	if err != nil {
		t.Fatal(err)
	}
	if rate != Rate || len(y) != len(x) {
		t.Fatalf("rate %d len %d, want %d %d", rate, len(y), Rate, len(x))
	}
	for i := range x {
		if x[i] != y[i] {
			t.Fatalf("sample %d: wrote %v read %v", i, x[i], y[i])
		}
	}
}

func TestWriteWAVRefusesClippedSamples(t *testing.T) {
	err := EncodeWAV(&bytes.Buffer{}, []float32{0, 1.5}, Rate)
	if err == nil || !strings.Contains(err.Error(), "sample 1") {
		t.Fatalf("err = %v, want sample 1 outside range", err)
	}
}

// header builds a PCM WAV header for the malformed-input cases.
func header(channels, rate, bits uint16, dataBytes uint32) []byte {
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(36 + dataBytes)
	b.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(1))
	w(channels)
	w(uint32(rate))
	w(uint32(rate) * uint32(channels*bits/8))
	w(channels * bits / 8)
	w(bits)
	b.WriteString("data")
	w(dataBytes)
	return b.Bytes()
}

func TestReadWAVRejectsMalformedFilesNamingThem(t *testing.T) {
	cases := map[string]struct {
		data []byte
		want string
	}{
		"empty":     {nil, "shorter than a RIFF header"},
		"text":      {[]byte("hello, this is not audio at all"), "no RIFF/WAVE header"},
		"stereo":    {append(header(2, 16000, 16, 8), make([]byte, 8)...), "2 channels"},
		"truncated": {append(header(1, 16000, 16, 400), make([]byte, 10)...), "past the end"},
		"hugefmt":   {append([]byte("RIFF\x00\x00\x00\x00WAVEfmt \xff\xff\xff\x7f"), make([]byte, 40)...), "past the end"},
		"8k-24bit":  {append(header(1, 8000, 24, 6), make([]byte, 6)...), ""},
		// An INFO entry claiming 4 GB in a small file: go-audio would
		// allocate the claim before reading it.
		"info-bomb": {withChunkBeforeData(header(1, 8000, 16, 4), "LIST", []byte("INFOINAM\xf0\xff\xff\xffab"), make([]byte, 4)),
			`LIST chunk at byte 36: INFO entry "INAM" claims 4294967280 bytes, past the list's end`},
	}
	dir := t.TempDir()
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".wav")
			os.WriteFile(path, c.data, 0o644)
			_, rate, err := ReadWAV(path)
			if c.want == "" {
				if err != nil || rate != 8000 {
					t.Fatalf("valid 24-bit file: rate %d err %v", rate, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want one naming %s and saying %q", err, path, c.want)
			}
		})
	}
}

// withChunkBeforeData puts a chunk between the fmt chunk and the data
// chunk of a file that header made, followed by data.
func withChunkBeforeData(h []byte, id string, body, data []byte) []byte {
	var b bytes.Buffer
	b.Write(h[:36])
	b.WriteString(id)
	binary.Write(&b, binary.LittleEndian, uint32(len(body)))
	b.Write(body)
	b.Write(h[36:])
	b.Write(data)
	out := b.Bytes()
	binary.LittleEndian.PutUint32(out[4:], uint32(len(out)-8))
	return out
}

// The samples end with the data chunk: a chunk after it (here a LIST of
// metadata) is not read as samples, and a valid INFO list before it is
// accepted.
func TestSamplesEndWithTheDataChunk(t *testing.T) {
	file := withChunkBeforeData(header(1, 8000, 16, 4), "LIST", []byte("INFOINAM\x02\x00\x00\x00ab"), []byte{0, 0x40, 0, 0xc0})
	file = append(file, []byte("LIST\x08\x00\x00\x00INFOxxxx")...)
	x, rate, err := DecodeWAV(bytes.NewReader(file))
	if err != nil || rate != 8000 || !slices.Equal(x, []float32{0.5, -0.5}) {
		t.Fatalf("got %v at %d Hz, %v; want [0.5 -0.5] at 8000 Hz", x, rate, err)
	}
}

func TestReadWAV16kResamplesOtherRates(t *testing.T) {
	x := sine(1000, 22050, 22050, 0.5)
	path := filepath.Join(t.TempDir(), "espeak.wav")
	if err := WriteWAV(path, x, 22050); err != nil {
		t.Fatal(err)
	}
	y, err := ReadWAV16k(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(y) != Rate {
		t.Fatalf("len %d, want %d", len(y), Rate)
	}
	// A 1 kHz tone crosses zero 2,000 times a second at any rate.
	crossings := 0
	for i := 1; i < len(y); i++ {
		if (y[i-1] < 0) != (y[i] < 0) {
			crossings++
		}
	}
	if crossings < 1990 || crossings > 2010 {
		t.Fatalf("%d zero crossings, want about 2000", crossings)
	}
	if r := RMS(y[1000:15000]); math.Abs(r-0.5/math.Sqrt2) > 0.01 {
		t.Fatalf("RMS %.4f after resampling, want %.4f", r, 0.5/math.Sqrt2)
	}
}

func FuzzDecodeWAV(f *testing.F) {
	var good bytes.Buffer
	EncodeWAV(&good, sine(300, Rate, 64, 0.5), Rate)
	f.Add(good.Bytes())
	f.Add(append(header(1, 8000, 8, 4), 1, 2, 3, 4))
	f.Add(append(header(1, 44100, 32, 8), make([]byte, 8)...))
	f.Add(append(header(2, 16000, 16, 4), 1, 2, 3, 4))
	f.Add([]byte("RIFF\x24\x00\x00\x00WAVEdata\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		x, rate, err := DecodeWAV(bytes.NewReader(data))
		if err != nil {
			return
		}
		if rate < 1000 || len(x) > len(data) {
			t.Fatalf("accepted rate %d with %d samples from %d bytes", rate, len(x), len(data))
		}
		for _, v := range x {
			if !(v >= -1 && v <= 1) {
				t.Fatalf("sample %v outside [-1, 1]", v)
			}
		}
	})
}

// shortReader hands out at most 7 bytes per Read (a size no sample width
// divides), as a slow pipe might.
type shortReader struct{ *bytes.Reader }

func (r shortReader) Read(p []byte) (int, error) { return r.Reader.Read(p[:min(len(p), 7)]) }

// The samples of every bit depth and channel count equal what go-audio's
// own decoder reads from the same bytes (8-bit unsigned around 128, the
// rest signed, scaled by 2^(bits-1)), whole or block by block, with reads
// of any size; a trailing partial sample is dropped (an odd-sized data
// chunk counts its pad byte, so the stray bytes keep the size even).
func TestDecodeMatchesGoAudio(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, bits := range []uint16{8, 16, 24, 32} {
		for _, nch := range []uint16{1, 2, 3} {
			frames := 70000 // more than one read buffer of either path
			stray := 0
			if bits >= 24 {
				stray = 2 // part of one more sample
			}
			data := make([]byte, frames*int(nch)*int(bits/8)+stray)
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			file := append(header(nch, 16000, bits, uint32(len(data))), data...)
			ref := wav.NewDecoder(bytes.NewReader(file))
			buf, err := ref.FullPCMBuffer()
			if err != nil {
				t.Fatal(err)
			}
			scale := 1 / float32(int64(1)<<(bits-1))
			want := make([][]float32, nch)
			for i, v := range buf.Data[:frames*int(nch)] {
				if bits == 8 {
					v -= 128
				}
				want[i%int(nch)] = append(want[i%int(nch)], float32(v)*scale)
			}
			name := fmt.Sprintf("%d-bit, %d channels", bits, nch)
			for _, r := range []io.ReadSeeker{bytes.NewReader(file), shortReader{bytes.NewReader(file)}} {
				got, rate, err := DecodeWAVChannels(r, 3)
				if err != nil || rate != 16000 {
					t.Fatalf("%s: %v, %d Hz", name, err, rate)
				}
				for k := range want {
					if !slices.Equal(got[k], want[k]) {
						t.Fatalf("%s: channel %d differs from go-audio's (%d and %d samples)", name, k, len(got[k]), len(want[k]))
					}
				}
			}
			blocks, err := OpenBlocks(file)
			if err != nil {
				t.Fatal(err)
			}
			got := make([][]float32, nch)
			for {
				block, err := blocks.Next()
				if errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatalf("%s: blocks: %v", name, err)
				}
				for k := range block {
					got[k] = append(got[k], block[k]...)
				}
			}
			for k := range want {
				if !slices.Equal(got[k], want[k]) {
					t.Fatalf("%s: channel %d in blocks differs from go-audio's", name, k)
				}
			}
		}
	}
}
