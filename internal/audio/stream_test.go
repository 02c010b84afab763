package audio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
)

// writeInterleaved writes a PCM16 WAV file whose frames are the samples of
// chans at one index each.
func writeInterleaved(t *testing.T, path string, rate int, chans ...[]float32) {
	t.Helper()
	var b bytes.Buffer
	n := len(chans[0])
	data := uint32(2 * len(chans) * n)
	for _, v := range []any{[4]byte{'R', 'I', 'F', 'F'}, 36 + data, [4]byte{'W', 'A', 'V', 'E'}, [4]byte{'f', 'm', 't', ' '},
		uint32(16), uint16(1), uint16(len(chans)), uint32(rate), uint32(2 * rate * len(chans)), uint16(2 * len(chans)), uint16(16),
		[4]byte{'d', 'a', 't', 'a'}, data} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	for i := range n {
		for _, c := range chans {
			binary.Write(&b, binary.LittleEndian, PCM16(c[i]))
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// wholeFile is what ingest did before streaming: read the whole recording,
// resample it, clip, cut or pad, write.
func wholeFile(t *testing.T, dst, src string, to, n int) []byte {
	t.Helper()
	x, rate, err := ReadWAVMono(src)
	if err != nil {
		t.Fatal(err)
	}
	x = Resample(x, rate, to)
	for i, v := range x {
		x[i] = max(-1, min(v, 32767.0/32768))
	}
	x = append(x, make([]float32, max(0, n-len(x)))...)[:n]
	if err := WriteWAV(dst, x, to); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(dst)
	return data
}

// Streaming must not change a single byte of the output: the corpus hash
// of an ingest covers every channel.
func TestResampleWAVFileMatchesWholeFileResampling(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	signal := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.Float64()*2 - 1)
			if i/500%2 == 0 { // full-scale square stretches overshoot when resampled
				x[i] = float32(1 - 2*(i/7%2))
			}
		}
		return x
	}
	for _, c := range []struct {
		rate, chans, frames int
		extra               int // samples of n beyond (or, negative, short of) the resampled length
	}{
		{8000, 1, 3*blockFrames + 17, 1234},
		{44100, 2, 2*blockFrames + 5, 0},
		{16000, 1, blockFrames + 3, 99},
		{11025, 3, 70000, -500},
		{1000, 1, 257, 50000},
	} {
		chans := make([][]float32, c.chans)
		for k := range chans {
			chans[k] = signal(c.frames)
		}
		src := filepath.Join(dir, "in.wav")
		writeInterleaved(t, src, c.rate, chans...)
		n := int((int64(c.frames)*16000+int64(c.rate)/2)/int64(c.rate)) + c.extra
		want := wholeFile(t, filepath.Join(dir, "whole.wav"), src, 16000, n)
		dst := filepath.Join(dir, "stream.wav")
		if err := ResampleWAVFile(dst, src, 16000, n, limits.Default()); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(dst)
		if !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%+v: streamed file (%d bytes) differs from the whole-file one (%d bytes) at byte %d", c, len(got), len(want), i)
		}
	}
}

// A recording at a low rate grows 16-fold when resampled to 16 kHz; the
// stream must hold blocks, not the recording. Ten minutes at 16 kHz are
// 9.6 M samples, 38 MB as float32: resampling the whole file allocates at
// least that, the stream a few blocks and the decoder's garbage (a 64 KB
// read buffer per block).
func TestResampleWAVFileMemoryDoesNotGrowWithLength(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in.wav")
	writeInterleaved(t, src, 1000, make([]float32, 600*1000))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := ResampleWAVFile(filepath.Join(dir, "out.wav"), src, 16000, 600*16000, limits.Default()); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("allocated %d bytes to resample 10 min at 1 kHz to 16 kHz: it holds the recording", got)
	}
}

// The TurnBench ingest streams WAV and FLAC cells of one or two channels:
// every channel must come out as decoding the whole cell made it.
func TestResampleToWAVMatchesWholeCellResampling(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ rate, chans, frames, extra int }{
		{8000, 2, 2*blockFrames + 11, 700},
		{44100, 1, blockFrames + 1, 0},
		{16000, 2, 5000, 40},
		{22050, 2, 90000, -300},
	} {
		chans := make([][]float32, c.chans)
		for k := range chans {
			chans[k] = make([]float32, c.frames)
			for i := range chans[k] {
				chans[k][i] = float32(rng.Float64()*2 - 1)
			}
		}
		src := filepath.Join(dir, "cell.wav")
		writeInterleaved(t, src, c.rate, chans...)
		data, _ := os.ReadFile(src)
		whole, rate, err := DecodeChannels(data)
		if err != nil {
			t.Fatal(err)
		}
		want := ResampledLength(int64(c.frames), c.rate, 16000)
		n := want + c.extra
		var dsts []string
		for k := range chans {
			dsts = append(dsts, filepath.Join(dir, fmt.Sprintf("stream-%d.wav", k)))
		}
		if err := ResampleToWAV(data, dsts, 16000, want, n); err != nil {
			t.Fatal(err)
		}
		for k := range chans {
			x := Resample(whole[k], rate, 16000)
			for i, v := range x {
				x[i] = max(-1, min(1, v))
			}
			x = append(x, make([]float32, max(0, n-len(x)))...)[:n]
			ref := filepath.Join(dir, "whole.wav")
			if err := WriteWAV(ref, x, 16000); err != nil {
				t.Fatal(err)
			}
			a, _ := os.ReadFile(ref)
			b, _ := os.ReadFile(dsts[k])
			if !bytes.Equal(a, b) {
				t.Errorf("%+v channel %d: streamed file (%d bytes) differs from the whole-cell one (%d bytes)", c, k, len(b), len(a))
			}
		}
	}
}

// As for ResampleWAVFile: counting and writing a ten-minute 1 kHz cell
// allocates a few blocks and the decoder's garbage, not the 38 MB of its
// 16 kHz channel.
func TestResampleToWAVMemoryDoesNotGrowWithLength(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "cell.wav")
	writeInterleaved(t, src, 1000, make([]float32, 600*1000))
	data, _ := os.ReadFile(src)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rate, _, frames, err := CountFrames(data)
	if err != nil {
		t.Fatal(err)
	}
	want := ResampledLength(frames, rate, 16000)
	if err := ResampleToWAV(data, []string{filepath.Join(dir, "out.wav")}, 16000, want, want); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("allocated %d bytes to resample 10 min at 1 kHz to 16 kHz: it holds the recording", got)
	}
}

// FuzzCountFrames holds the block decoder to the whole-file one: the same
// files accepted, the same rate, channels and frames.
func FuzzCountFrames(f *testing.F) {
	var good bytes.Buffer
	EncodeWAV(&good, sine(300, Rate, 64, 0.5), Rate)
	f.Add(good.Bytes())
	f.Add(append(header(1, 8000, 8, 4), 1, 2, 3, 4))
	f.Add(append(header(2, 16000, 16, 4), 1, 2, 3, 4))
	f.Add(append(header(3, 16000, 24, 9), 1, 2, 3, 4, 5, 6, 7, 8, 9))
	f.Add([]byte("fLaC\x00\x00\x00\x22"))
	f.Fuzz(func(t *testing.T, data []byte) {
		chans, rate, wholeErr := DecodeChannels(data)
		r, nch, frames, err := CountFrames(data)
		if (wholeErr == nil) != (err == nil) {
			t.Fatalf("whole-file decoding says %v, block decoding %v", wholeErr, err)
		}
		if err == nil && (r != rate || nch != len(chans) || frames != int64(len(chans[0]))) {
			t.Fatalf("blocks: %d Hz, %d channels, %d frames; whole: %d Hz, %d channels, %d frames", r, nch, frames, rate, len(chans), len(chans[0]))
		}
	})
}
