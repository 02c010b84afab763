package audio

import (
	"bytes"
	"testing"
)

// A window read in place is the same samples a whole decode gives there.
func TestPCMFileWindowIsTheDecodedSamples(t *testing.T) {
	x := make([]float32, 1000)
	for i := range x {
		x[i] = float32(i%200-100) / 128
	}
	var buf bytes.Buffer
	if err := EncodeWAV(&buf, x, 8000); err != nil {
		t.Fatal(err)
	}
	whole, rate, err := DecodeWAV(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	f, err := OpenPCMFile(bytes.NewReader(buf.Bytes()))
	if err != nil || f.Rate != rate || f.Frames != 1000 {
		t.Fatalf("%+v, %v", f, err)
	}
	for _, w := range [][2]int64{{0, 10}, {333, 250}, {990, 100}, {-5, 10}, {2000, 5}} {
		got, err := f.Window(w[0], w[1])
		if err != nil {
			t.Fatal(err)
		}
		from := max(0, min(w[0], 1000))
		want := whole[from:min(1000, max(from, w[0]+w[1]))]
		if len(got) != len(want) {
			t.Fatalf("window %v: %d samples, want %d", w, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("window %v: sample %d is %v, want %v", w, i, got[i], want[i])
			}
		}
	}
}
