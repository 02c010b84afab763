package audio

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
