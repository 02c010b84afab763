package audio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// readAll reads r to its end in reads of the sizes given in turn.
func readAll(r *MonoReader, sizes ...int) ([]float32, error) {
	var out []float32
	for i := 0; ; i++ {
		p := make([]float32, sizes[i%len(sizes)])
		n, err := r.Read(p)
		out = append(out, p[:n]...)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if n < len(p) {
			// A short read is the end: the next says so.
			if n, err := r.Read(p); n != 0 || !errors.Is(err, io.EOF) {
				return out, fmt.Errorf("after a short read: %d samples, %v", n, err)
			}
			return out, nil
		}
	}
}

// A model stage reads a channel a block at a time where it read it whole:
// every sample must be the one DecodeWAV and Resample give, bit for bit,
// whatever the rate, the length and the sizes of the reads.
func TestMonoReaderGivesWholeFileSamples(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ rate, frames int }{
		{16000, 2*blockFrames + 77},
		{22050, 3*blockFrames + 5},
		{24000, 90001},
		{8000, blockFrames},
		{44100, 1000},
		{22050, 0},
		{22050, 3},
	} {
		x := make([]float32, c.frames)
		for i := range x {
			x[i] = float32(rng.Float64()*2 - 1)
		}
		src := filepath.Join(dir, fmt.Sprintf("%d-%d.wav", c.rate, c.frames))
		writeInterleaved(t, src, c.rate, x)
		data, _ := os.ReadFile(src)
		whole, rate, err := DecodeWAV(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		want := Resample(whole, rate, 16000)
		for _, sizes := range [][]int{{1 << 14}, {1}, {511, 4097, 100000}} {
			r, err := NewMonoReader(bytes.NewReader(data), 16000)
			if err != nil {
				t.Fatal(err)
			}
			if r.Len() != len(want) {
				t.Errorf("%+v: Len %d, want %d", c, r.Len(), len(want))
			}
			got, err := readAll(r, sizes...)
			if err != nil {
				t.Fatalf("%+v reads of %v: %v", c, sizes, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%+v reads of %v: %d samples, want %d", c, sizes, len(got), len(want))
			}
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%+v reads of %v: sample %d is %v, whole-file %v", c, sizes, i, got[i], want[i])
				}
			}
		}
	}
}

// A file shorter than its header says is refused with the error decoding
// it whole gives.
func TestMonoReaderRefusesATruncatedFile(t *testing.T) {
	src := filepath.Join(t.TempDir(), "a.wav")
	writeInterleaved(t, src, 22050, make([]float32, 50000))
	data, _ := os.ReadFile(src)
	data = data[:len(data)-1000]
	_, _, want := DecodeWAV(bytes.NewReader(data))
	if want == nil {
		t.Fatal("DecodeWAV read a truncated file")
	}
	r, err := NewMonoReader(bytes.NewReader(data), 16000)
	if err == nil {
		_, err = readAll(r, 4096)
	}
	if err == nil || err.Error() != want.Error() {
		t.Fatalf("read a truncated file: %v; whole, it fails with %v", err, want)
	}
}
