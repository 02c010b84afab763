package detect

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// choppyActivity is a fixed input for the floor mappings: three speakers at
// 50 fps whose activity alternates between runs of speech (0.4 to 1) and of
// silence (0 to 0.45), so that hysteresis, short runs, overlaps and the INT
// gate's lookback all occur.
func choppyActivity() [][]float64 {
	rng := rand.New(rand.NewPCG(7, 11))
	out := make([][]float64, 3)
	for k := range out {
		track := make([]float64, 500)
		speech := k == 0
		for i := 0; i < len(track); {
			run := 1 + rng.IntN(40)
			for j := i; j < min(i+run, len(track)); j++ {
				if speech {
					track[j] = 0.4 + 0.6*rng.Float64()
				} else {
					track[j] = 0.45 * rng.Float64()
				}
			}
			i += run
			speech = !speech
		}
		out[k] = track
	}
	return out
}

// formatTracks writes score tracks one line per speaker and task, each value
// in the shortest form that reads back exactly.
func formatTracks(eot, intr [][]float64) string {
	var b strings.Builder
	for k := range eot {
		for _, t := range []struct {
			name  string
			track []float64
		}{{"eot", eot[k]}, {"int", intr[k]}} {
			fmt.Fprintf(&b, "speaker %d %s:", k+1, t.name)
			for _, v := range t.track {
				b.WriteString(" " + strconv.FormatFloat(v, 'g', -1, 64))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// The endpointer families keep the tracks of the silence-timeout rule that was
// once the acoustic families' only mapping: testdata/endpointer.golden was
// written by that rule, before the gates were added.
func TestEndpointerKeepsItsTracks(t *testing.T) {
	eot, intr := defaultEndpointer(t).Apply(choppyActivity(), 50)
	got := formatTracks(eot, intr)
	const path = "testdata/endpointer.golden"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("tracks differ from %s (go test -update rewrites it)", path)
	}
}
