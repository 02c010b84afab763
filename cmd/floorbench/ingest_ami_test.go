package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
)

const amiFixture = "../../internal/ingest/ami/testdata/nxt"

var timedElement = regexp.MustCompile(`<(?:w|vocalsound) [^>]*starttime="([0-9.]+)" endtime="([0-9.]+)"`)

// amiHeadsets writes 16 kHz headset files for the fixture meetings in the
// flat layout: a tone where the words file has timed words and sounds.
// IB4099's speaker C has no headset file.
func amiHeadsets(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, m := range []struct {
		id      string
		letters string
		seconds float64
	}{{"ES2099a", "ABCD", 22.5}, {"IB4099", "AB", 7}} {
		for n, letter := range m.letters {
			data, err := os.ReadFile(filepath.Join(amiFixture, "words", m.id+"."+string(letter)+".words.xml"))
			if err != nil {
				t.Fatal(err)
			}
			x := make([]float32, int(m.seconds*16000))
			for _, sub := range timedElement.FindAllStringSubmatch(string(data), -1) {
				s, _ := strconv.ParseFloat(sub[1], 64)
				e, _ := strconv.ParseFloat(sub[2], 64)
				for i := int(s * 16000); i < int(e*16000); i++ {
					x[i] = float32(0.3 * math.Sin(2*math.Pi*220*float64(i)/16000))
				}
			}
			path := filepath.Join(dir, m.id+".Headset-"+strconv.Itoa(n)+".wav")
			if err := audio.WriteWAV(path, x, 16000); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// TestIngestAMIThenDetectAndSweep runs the whole path a user takes with
// AMI: ingest, stats, check, gold, detect, sweep.
func TestIngestAMIThenDetectAndSweep(t *testing.T) {
	tmp := t.TempDir()
	meetings := writeFile(t, tmp, "meetings.txt", "ES2099a\nIB4099 dev\n")
	out := filepath.Join(tmp, "ami")
	stdout, stderr, code := run(t, "corpus", "ingest", "ami", "--nxt", amiFixture, "--audio", amiHeadsets(t), "--meetings", meetings, "--out", out)
	if code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	var rows []string
	for _, line := range strings.Split(stdout, "\n") {
		rows = append(rows, strings.Join(strings.Fields(line), " "))
	}
	for _, want := range []string{
		"wrote 2 meetings to " + out,
		"ES2099a test ABCD - 63 1 5 4 1 4 2 1 1 1 2 0",
		"IB4099 dev ABC C 19 0 2 2 0 0 1 0 0 0 0 1",
		"total 82 1 7 6 1 4 3 1 1 1 2 1",
	} {
		if !slices.Contains(rows, want) {
			t.Errorf("ingest output lacks the row %q:\n%s", want, stdout)
		}
	}
	if stdout, stderr, code := run(t, "corpus", "check", out); code != 0 || !strings.Contains(stdout, "2 conversations ok") {
		t.Errorf("check: exit %d: %s%s", code, stdout, stderr)
	}
	stdout, stderr, code = run(t, "corpus", "stats", out)
	if code != 0 || !strings.Contains(stdout, "scenario") || !strings.Contains(stdout, "non-scenario") {
		t.Errorf("stats: exit %d: %s%s", code, stdout, stderr)
	}
	gold := goldFile(t, out, "test")
	probs := filepath.Join(tmp, "probs")
	if _, stderr, code := run(t, "detect", "--system", "rms", "--corpus", out, "--split", "test", "--out", probs); code != 0 {
		t.Fatalf("detect: exit %d: %s", code, stderr)
	}
	stdout, stderr, code = run(t, "sweep", "--gold", gold, "--probs", filepath.Join(probs, "probs-int.json"), "-o", "json")
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	checkAMIInterruptionSweep(t, stdout)
	// Ingesting again into the same folder needs --force.
	_, stderr, code = run(t, "corpus", "ingest", "ami", "--nxt", amiFixture, "--audio", amiHeadsets(t), "--meetings", meetings, "--out", out)
	if want := "floorbench: output folder " + out + " is not empty (use --force to replace the corpus in it)\n"; code == 0 || stderr != want {
		t.Errorf("second ingest: exit %d, stderr %q", code, stderr)
	}
}

// sweepCounts are a sweep row's or operating point's numbers.
type sweepCounts struct {
	Theta          float64
	Recall         float64
	FPRate         float64 `json:"fp_rate"`
	TP, FP, FN, TN int
}

// checkAMIInterruptionSweep checks the INT sweep of rms on ES2099a against
// counts worked out by hand from the fixture's word times (the headsets
// carry a tone exactly on the timed words and sounds; A, B, C speak, D is
// a gap). rms's gate scores are 0 or 1, so every θ below 1 commits the
// same edges: INT is 1 while a speaker speaks and another speaks or spoke
// in the last 0.5 s (int_gate_lookback_s), an edge commits when the score
// rises above θ, and an edge within 2 s (refractory_s) of the speaker's
// last committed one is dropped. The gold's INT negative spans:
//
//	A 16.0-16.4 "really", B speaking 15.4-16.85: edge at 16.0, FP
//	A 21.5-21.9 cough, nobody within 0.5 s (B last 18.39): no edge, TN
//	B 3.0-3.3 "Mm-hmm", A stopped at 2.73, held by rms's 0.2 s hangover
//	  (hangover_s) to about 2.93, 0.07 s before: edge, FP
//	C 6.0-6.4 laugh, A speaking 5.0-6.99: edge, FP
//	C 8.9-9.5 "that sounds good", B speaking 8.0-11.08: edge, FP
//
// and its one INT event, C's "wait" at 10.4 over B, rises 1.5 s after C's
// edge at 8.9, inside the refractory: missed, FN. So θ < 1 gives tp 0,
// fp 4, fn 1, tn 1; θ = 1 commits nothing (no score is above 1): tp 0,
// fp 0, fn 1, tn 5, the only row within the 0.1 budget, so the operating
// point.
func checkAMIInterruptionSweep(t *testing.T, stdout string) {
	t.Helper()
	var res struct {
		Task           string
		Candidates     int `json:"n_candidates"`
		Rows           []sweepCounts
		OperatingPoint *sweepCounts `json:"operating_point"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("sweep output: %v", err)
	}
	if res.Task != "int" || res.Candidates == 0 || len(res.Rows) != res.Candidates {
		t.Fatalf("sweep of task %q: %d candidates, %d rows", res.Task, res.Candidates, len(res.Rows))
	}
	below := sweepCounts{TP: 0, FP: 4, FN: 1, TN: 1, Recall: 0, FPRate: 0.8}
	at1 := sweepCounts{Theta: 1, TP: 0, FP: 0, FN: 1, TN: 5, Recall: 0, FPRate: 0}
	for _, r := range res.Rows {
		want := at1
		if r.Theta < 1 {
			below.Theta = r.Theta
			want = below
		}
		if r != want {
			t.Fatalf("row θ=%v: %+v, want %+v", r.Theta, r, want)
		}
	}
	if last := res.Rows[len(res.Rows)-1]; last.Theta != 1 {
		t.Errorf("the last candidate is θ=%v, want 1", last.Theta)
	}
	if res.OperatingPoint == nil || *res.OperatingPoint != at1 {
		t.Errorf("operating point %+v, want %+v", res.OperatingPoint, at1)
	}
}
