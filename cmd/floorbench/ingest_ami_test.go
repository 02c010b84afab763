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

const amiFixture = "../../internal/corpus/testdata/ami/nxt"

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
	if code != 0 || !json.Valid([]byte(stdout)) {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	// Ingesting again into the same folder needs --force.
	_, stderr, code = run(t, "corpus", "ingest", "ami", "--nxt", amiFixture, "--audio", amiHeadsets(t), "--meetings", meetings, "--out", out)
	if want := "floorbench: output folder " + out + " is not empty (use --force to replace the corpus in it)\n"; code == 0 || stderr != want {
		t.Errorf("second ingest: exit %d, stderr %q", code, stderr)
	}
}
