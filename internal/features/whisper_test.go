package features

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/features/reference"
)

// speechLike is a voiced buzz: a 100-250 Hz glottal pulse train through
// two formant-like resonances, under a syllable envelope, with pauses
// and a little noise.
func speechLike(n int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 41))
	out := make([]float32, n)
	var y1, y2, z1, z2, phase float64
	for i := range out {
		sec := float64(i) / 16000
		f0 := 100 + 150*(0.5+0.5*math.Sin(2*math.Pi*0.7*sec))
		phase += f0 / 16000
		var pulse float64
		if phase >= 1 {
			phase--
			pulse = 1
		}
		// Resonators near 700 Hz and 1200 Hz.
		y := pulse + 1.8*math.Cos(2*math.Pi*700/16000)*0.97*y1 - 0.97*0.97*y2
		y2, y1 = y1, y
		z := y + 1.8*math.Cos(2*math.Pi*1200/16000)*0.95*z1 - 0.95*0.95*z2
		z2, z1 = z1, z
		env := math.Max(0, math.Sin(2*math.Pi*2.5*sec))
		out[i] = float32(0.02*z*env + 0.001*rng.NormFloat64())
	}
	return out
}

func whiteNoise(n int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(rng.Float64()*2 - 1)
	}
	return out
}

// compareLogMel fails the test where features (bin by bin) and want
// differ by more than tol.
func compareLogMel(t *testing.T, got []float32, want [][]float64, tol float64) {
	t.Helper()
	frames := len(want[0])
	if len(got) != len(want)*frames {
		t.Fatalf("%d values, want %d bins x %d frames", len(got), len(want), frames)
	}
	worst, at := 0.0, 0
	for i := range want {
		for j, w := range want[i] {
			if d := math.Abs(float64(got[i*frames+j]) - w); d > worst {
				worst, at = d, i*frames+j
			}
		}
	}
	if worst > tol {
		t.Fatalf("bin %d frame %d: %v, want %v (off by %.3g, more than %g)",
			at/frames, at%frames, got[at], want[at/frames][at%frames], worst, tol)
	}
}

// The production front end (FFT, sparse bank) agrees with the definition
// (direct DFT, dense bank) on noise, speech-like sound, chunks padded
// with zeros in front or behind, and silence, for 80 and 128 bins.
func TestWhisperLogMelMatchesItsDefinition(t *testing.T) {
	padFront := func(x []float32, zeros int) []float32 { return append(make([]float32, zeros), x...) }
	cases := []struct {
		name  string
		chunk []float32
	}{
		{"noise", whiteNoise(16000, 1)},
		{"speech", speechLike(32000, 2)},
		{"speech padded in front", padFront(speechLike(6000, 3), 10000)},
		{"speech padded behind", append(speechLike(6000, 4), make([]float32, 10000)...)},
		{"normalised speech padded in front", reference.Normalized(padFront(speechLike(9000, 5), 7000), 16000)},
		{"silence", make([]float32, 4000)},
		{"odd length", speechLike(4321, 6)},
	}
	for _, bins := range []int{80, 128} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%d bins %s", bins, c.name), func(t *testing.T) {
				mel, err := NewWhisperLogMel(bins, len(c.chunk))
				if err != nil {
					t.Fatal(err)
				}
				got := make([]float32, bins*mel.Frames())
				if err := mel.Extractor().Compute(got, c.chunk); err != nil {
					t.Fatal(err)
				}
				compareLogMel(t, got, reference.LogMel(c.chunk, bins), 1e-4)
			})
		}
	}
}

// Smart Turn v3's whole input, 8 s into [80, 800], against the
// definition.
func TestWhisperLogMelOfAnEightSecondChunk(t *testing.T) {
	chunk := append(make([]float32, 28000), speechLike(100000, 8)...)
	Normalize(chunk, len(chunk))
	mel, err := NewWhisperLogMel(80, 128000)
	if err != nil {
		t.Fatal(err)
	}
	if mel.Frames() != 800 {
		t.Fatalf("8 s gives %d frames, want 800", mel.Frames())
	}
	got := make([]float32, 80*800)
	if err := mel.Extractor().Compute(got, chunk); err != nil {
		t.Fatal(err)
	}
	compareLogMel(t, got, reference.LogMel(chunk, 80), 1e-4)
}

// One extractor computes chunk after chunk: nothing of one leaks into
// the next, and nothing is allocated per chunk.
func TestWhisperExtractorIsReusable(t *testing.T) {
	mel, err := NewWhisperLogMel(80, 8000)
	if err != nil {
		t.Fatal(err)
	}
	e := mel.Extractor()
	a, b := speechLike(8000, 11), whiteNoise(8000, 12)
	first, again := make([]float32, 80*50), make([]float32, 80*50)
	if err := e.Compute(first, a); err != nil {
		t.Fatal(err)
	}
	if err := e.Compute(again, b); err != nil {
		t.Fatal(err)
	}
	if err := e.Compute(again, a); err != nil {
		t.Fatal(err)
	}
	for i := range first {
		if first[i] != again[i] {
			t.Fatalf("value %d: %v after another chunk, %v before", i, again[i], first[i])
		}
	}
	if n := testing.AllocsPerRun(5, func() { e.Compute(again, b) }); n != 0 {
		t.Errorf("%v allocations per chunk, want 0", n)
	}
}

// Slaney's normalisation gives every filter unit area in hertz: on the
// 40 Hz grid the weights of a filter wider than ten bins sum to 1/40.
func TestSlaneyFiltersHaveUnitArea(t *testing.T) {
	for _, bins := range []int{80, 128} {
		edge := func(i int) float64 { return slaneyHz(slaneyMel(8000) * float64(i) / float64(bins+1)) }
		for i, f := range slaneyFilterBank(bins) {
			if width := edge(i+2) - edge(i); width > 400 {
				var sum float64
				for _, w := range f {
					sum += w
				}
				if math.Abs(sum*40-1) > 0.02 {
					t.Errorf("%d bins: filter %d (%.0f Hz wide) has area %.4f, want 1", bins, i, width, sum*40)
				}
			}
		}
	}
}

// The Slaney scale is linear below 1 kHz (3 mels per 200 Hz) and gains
// 27 mels per factor 6.4 above, and slaneyHz inverts it.
func TestSlaneyMelScale(t *testing.T) {
	for _, c := range []struct{ hz, mel float64 }{
		{0, 0}, {200, 3}, {500, 7.5}, {1000, 15}, {6400, 42}, {8000, 15 + 27*math.Log(8)/math.Log(6.4)},
	} {
		if got := slaneyMel(c.hz); math.Abs(got-c.mel) > 1e-9 {
			t.Errorf("%g Hz is %g mels, want %g", c.hz, got, c.mel)
		}
		if got := slaneyHz(c.mel); math.Abs(got-c.hz) > 1e-6 {
			t.Errorf("%g mels is %g Hz, want %g", c.mel, got, c.hz)
		}
	}
}

func TestNewWhisperLogMelRefusesWhatItCannotCompute(t *testing.T) {
	for _, c := range []struct {
		bins, samples int
		want          string
	}{
		{0, 16000, "mel bins 0: want 1 to 201"},
		{1 << 40, 16000, "mel bins 1099511627776: want 1 to 201"},
		{80, 399, "chunk of 399 samples: want at least 400"},
		{200, 16000, "mel bins 200: filter 0 covers no frequency bin"},
	} {
		_, err := NewWhisperLogMel(c.bins, c.samples)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d bins, %d samples: got %v, want %q", c.bins, c.samples, err, c.want)
		}
	}
}

// goldenSignal is make_golden.py's signal(n), in the same integers.
func goldenSignal(n int) []float32 {
	out := make([]float32, n)
	state := int64(2026)
	for i := range out {
		state = (1103515245*state + 12345) % (1 << 31)
		noise := (state>>16)%201 - 100
		amp := int64(0)
		if i >= 4000 {
			amp = min(int64(i-4000), 4000)
		}
		if i >= 20000 && i < 24000 {
			amp = 0
		}
		voiced := (int64(i%128)*256*amp)/8000 - (16384*amp)/8000
		out[i] = float32(float64(voiced+noise) / 32768)
	}
	return out
}

func readGolden(t *testing.T, name string, n int) []float32 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "whisper", name))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 4*n {
		t.Fatalf("%s: %d bytes, want %d float32 values", name, len(data), n)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return out
}

// numpy's features (testdata/whisper/make_golden.py, Hugging Face's
// recipe with its float32 and complex64 roundings) for Smart Turn v3's
// treatment of a short input (zeros in front, normalised, 80 bins) and
// for 128 bins unnormalised.
func TestWhisperLogMelMatchesNumpyGolden(t *testing.T) {
	smartTurn := append(make([]float32, 8000), goldenSignal(24000)...)
	Normalize(smartTurn, len(smartTurn))
	for _, c := range []struct {
		file  string
		bins  int
		chunk []float32
	}{
		{"smart-turn-80.f32", 80, smartTurn},
		{"whisper-128.f32", 128, goldenSignal(16000)},
	} {
		t.Run(c.file, func(t *testing.T) {
			mel, err := NewWhisperLogMel(c.bins, len(c.chunk))
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float32, c.bins*mel.Frames())
			if err := mel.Extractor().Compute(got, c.chunk); err != nil {
				t.Fatal(err)
			}
			want := readGolden(t, c.file, len(got))
			for i := range got {
				if d := math.Abs(float64(got[i] - want[i])); d > 1e-4 {
					t.Fatalf("bin %d frame %d: %v, numpy %v", i/mel.Frames(), i%mel.Frames(), got[i], want[i])
				}
			}
		})
	}
}

// BenchmarkWhisperLogMel is one step of Smart Turn v3 for one row: 80
// bins of an 8 s chunk.
func BenchmarkWhisperLogMel(b *testing.B) {
	mel, err := NewWhisperLogMel(80, 128000)
	if err != nil {
		b.Fatal(err)
	}
	e := mel.Extractor()
	chunk := speechLike(128000, 1)
	dst := make([]float32, 80*mel.Frames())
	b.ReportAllocs()
	b.SetBytes(4 * 128000)
	for b.Loop() {
		if err := e.Compute(dst, chunk); err != nil {
			b.Fatal(err)
		}
	}
}
