package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkProcessTurnBenchDev times whole floorbench processes (start,
// read, compute, write; what a user waits for) on inputs of TurnBench
// dev's size, the size the Python reference was timed on: 38
// conversations × 12 min, 2 speakers, three annotators whose segments
// carry their transcripts (1.9 MB of annotations), 50 Hz probability
// tracks at four decimals (20 MB). It reports each process's peak RSS and
// its input's size. The Python reference's figures on inputs of this size
// are in the README beside these. "start" is `floorbench --version`, a
// process that reads nothing. FLOORBENCH_BIN measures another build's
// floorbench (the one before a change) on the same inputs.
//
//	go test -run '^$' -bench ProcessTurnBenchDev -count 3 ./cmd/floorbench/
func BenchmarkProcessTurnBenchDev(b *testing.B) {
	binary := cmp.Or(os.Getenv("FLOORBENCH_BIN"), binary)
	dir := b.TempDir()
	ann, probs, preds := filepath.Join(dir, "annotations.json"), filepath.Join(dir, "probs-eot.json"), filepath.Join(dir, "predictions.json")
	turnEnds := writeDevSizedInputs(b, ann, probs, preds)
	gold := filepath.Join(dir, "gold.json")
	out, err := exec.Command(binary, "gold", "turnbench", "--annotations", ann, "-o", "json").Output()
	if err != nil {
		b.Fatalf("gold turnbench: %v", err)
	}
	if err := os.WriteFile(gold, out, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		inputs []string
		args   []string
	}{
		{"start", nil, []string{"--version"}},
		{"gold-turnbench", []string{ann}, []string{"gold", "turnbench", "--annotations", ann, "-o", "json"}},
		{"score", []string{gold, preds}, []string{"score", "--gold", gold, "--predictions", preds, "-o", "json"}},
		{"sweep-50Hz", []string{gold, probs}, []string{"sweep", "--gold", gold, "--probs", probs, "-o", "json"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var input int64
			for _, f := range c.inputs {
				fi, err := os.Stat(f)
				if err != nil {
					b.Fatal(err)
				}
				input += fi.Size()
			}
			var peak int64
			for range b.N {
				report := filepath.Join(b.TempDir(), "maxrss")
				cmd := exec.Command(maxrss, append([]string{binary}, c.args...)...)
				cmd.Env = append(os.Environ(), "MAXRSS_FILE="+report)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %v: %.300s", c.args, err, out)
				}
				data, err := os.ReadFile(report)
				if err != nil {
					b.Fatal(err)
				}
				rss, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
				if err != nil {
					b.Fatal(err)
				}
				peak = max(peak, rss)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
			b.ReportMetric(float64(input)/(1<<20), "input-MB")
		})
	}
	b.ReportMetric(float64(turnEnds), "turns")
}

// writeDevSizedInputs writes raw three-annotator annotations, a 50 Hz EOT
// probability file and a submission for 38 conversations × 12 min of
// alternating turns with backchannels and interruptions, and returns the
// number of turns. Segments carry transcripts of a turn's length and
// probabilities four decimals, as TurnBench dev's files do, so that the
// files are the size of the reference's: about 1.9 MB and 20 MB.
func writeDevSizedInputs(b testing.TB, annPath, probsPath, predsPath string) int {
	b.Helper()
	const convs, duration, fps = 38, 720.0, 50.0
	rng := rand.New(rand.NewPCG(12, 38))
	type segment [4]any
	annotations := map[string]any{}
	var probs, preds []map[string]any
	turns := 0
	for c := range convs {
		id := fmt.Sprint(1000 + c)
		tracks := [2][3][]segment{}
		frames := int(duration * fps)
		eot := [2][]float64{make([]float64, frames), make([]float64, frames)}
		var predEOT, predINT [2][]float64
		for k := range 2 {
			for i := range eot[k] {
				eot[k][i] = math.Round(0.05*rng.Float64()*10000) / 10000
			}
		}
		add := func(k int, start, end float64, label string) {
			for a := range 3 {
				if a == 2 && rng.IntN(12) == 0 {
					continue // annotator c misses a segment now and then
				}
				j := func() float64 { return math.Round((rng.Float64()-0.5)*0.1*1000) / 1000 }
				tracks[k][a] = append(tracks[k][a], segment{start + j(), end + j(), label, transcript(rng, end-start)})
			}
		}
		k := 0
		for t := 0.5; t < duration-12; {
			end := t + 2 + 8*rng.Float64()
			label := "Normal Turn"
			if rng.IntN(10) == 0 && t > 1 {
				label = "Interruption"
				predINT[k] = append(predINT[k], t+0.3)
			}
			add(k, t, end, label)
			turns++
			if rng.IntN(4) == 0 {
				bc := t + (end-t)*rng.Float64()*0.8
				add(1-k, bc, bc+0.3+0.5*rng.Float64(), "Acknowledgement Backchannel")
			}
			at := end + 0.8*rng.Float64()
			for i := int(at * fps); i < min(frames, int((at+0.6)*fps)); i++ {
				eot[k][i] = math.Round(math.Max(eot[k][i], 0.3+0.7*rng.Float64())*10000) / 10000
			}
			predEOT[k] = append(predEOT[k], at)
			t = end + 1.0*rng.Float64() - 0.3
			k = 1 - k
		}
		speakers := map[string]any{}
		conv := map[string]any{"conversation_id": id}
		prob := map[string]any{"conversation_id": id}
		for k := range 2 {
			name := fmt.Sprintf("speaker_%d", k+1)
			speakers[name] = map[string]any{"a": tracks[k][0], "b": tracks[k][1], "c": tracks[k][2]}
			conv[name] = map[string]any{"eot": nonNil(predEOT[k]), "interruption": nonNil(predINT[k])}
			prob[name] = map[string]any{"prob": eot[k]}
		}
		annotations[id] = map[string]any{"duration_s": duration, "annotations": speakers}
		preds = append(preds, conv)
		probs = append(probs, prob)
	}
	writeJSONFile(b, annPath, map[string]any{"conversations": annotations})
	writeJSONFile(b, probsPath, map[string]any{"schema_version": 1, "task": "eot", "frame_rate_hz": fps, "probs": probs})
	writeJSONFile(b, predsPath, map[string]any{"schema_version": 1, "predictions": preds})
	return turns
}

// transcript is words enough for a segment of d seconds, at about 2.6
// words a second.
func transcript(rng *rand.Rand, d float64) string {
	words := []string{"so", "I", "think", "we", "should", "move", "the", "meeting", "to", "Tuesday", "yeah", "right", "because", "otherwise", "nobody", "can", "come"}
	n := max(1, int(d*2.6))
	out := make([]string, n)
	for i := range out {
		out[i] = words[rng.IntN(len(words))]
	}
	return strings.Join(out, " ")
}

func nonNil(x []float64) []float64 {
	if x == nil {
		return []float64{}
	}
	return x
}

func writeJSONFile(b testing.TB, path string, v any) {
	b.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
}
