package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/testenv"
)

// requireDetectTools skips, or fails under FLOORBENCH_REQUIRE_TOOLS=1, when
// the speech engines or the setup's onnx component are missing.
func requireDetectTools(t *testing.T) {
	t.Helper()
	rt := detect.RuntimeFromEnv()
	var missing []string
	for _, tool := range []string{"espeak-ng", "flite"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	for _, f := range []string{detect.OnnxRuntimeLibraryPath, detect.SileroModelPath} {
		if _, err := os.Stat(filepath.Join(rt.Tools, f)); err != nil {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := strings.Join(missing, ", ") + " not installed (scripts/setup.sh test)"
	if testenv.Required() {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// tiny is the tiny preset (seed 1) generated once through the command for
// every test that reads a corpus; tests copy it before changing it.
var tiny struct {
	once           sync.Once
	dir            string
	stdout, stderr string
	code           int
}

// tinyCorpus returns the shared tiny corpus, failing the test if its
// generation failed.
func tinyCorpus(t *testing.T) string {
	t.Helper()
	tiny.once.Do(func() {
		tiny.dir = filepath.Join(tempRoot, "tiny")
		tiny.stdout, tiny.stderr, tiny.code = run(t, "corpus", "generate", "--preset", "tiny", "--seed", "1", "--out", tiny.dir, "--jobs", "2")
	})
	if tiny.code != 0 {
		t.Fatalf("corpus generate: exit %d: %s", tiny.code, tiny.stderr)
	}
	return tiny.dir
}

// copyCorpus copies a corpus into a fresh folder that a test may change.
func copyCorpus(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "corpus")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func goldFile(t *testing.T, corpusDir, split string) string {
	t.Helper()
	stdout, stderr, code := run(t, "gold", "--corpus", corpusDir, "--split", split, "-o", "json")
	if code != 0 {
		t.Fatalf("gold: exit %d: %s", code, stderr)
	}
	return writeFile(t, t.TempDir(), "gold-"+split+".json", stdout)
}

// TestDetectOnTheTinyCorpus generates the tiny corpus once for the checks
// that need one.
func TestDetectOnTheTinyCorpus(t *testing.T) {
	if testing.Short() {
		// Two minutes of floorbench child processes: run whole without
		// the race detector by scripts/test.sh.
		t.Skip("-short: detection over the tiny corpus is left to the full run")
	}
	requireDetectTools(t)
	dir := tinyCorpus(t)
	t.Run("then sweep", func(t *testing.T) { detectThenSweep(t, dir) })
	t.Run("bad input", func(t *testing.T) { detectRejectsBadInput(t, dir) })
	t.Run("keeps existing probs", func(t *testing.T) { detectKeepsExistingProbs(t, dir) })
}

// Probability files already in --out are replaced only with --force.
func detectKeepsExistingProbs(t *testing.T, dir string) {
	out := t.TempDir()
	mine := writeFile(t, out, "probs-int.json", "mine")
	_, stderr, code := run(t, "detect", "--system", "rms", "--corpus", dir, "--split", "dev", "--out", out)
	if code != 1 || !strings.Contains(stderr, "probs-int.json exists (--force replaces it)") {
		t.Fatalf("detect over existing probs: exit %d, %q", code, stderr)
	}
	if data, _ := os.ReadFile(mine); string(data) != "mine" {
		t.Fatalf("detect without --force replaced %s", mine)
	}
	if _, err := os.Stat(filepath.Join(out, "probs-eot.json")); err == nil {
		t.Fatal("detect without --force wrote probs-eot.json")
	}
	if _, stderr, code := run(t, "detect", "--system", "rms", "--corpus", dir, "--split", "dev", "--out", out, "--force"); code != 0 {
		t.Fatalf("detect --force: exit %d: %s", code, stderr)
	}
	if data, _ := os.ReadFile(mine); !strings.Contains(string(data), `"task"`) {
		t.Fatalf("detect --force did not replace %s: %.80q", mine, data)
	}
}

// detectThenSweep is the end-to-end check: detect then sweep on the tiny corpus gives an
// operating point or a clear "none in budget" for every built-in, and the
// acoustic gates reach high EOT recall only far above the FP budget (both
// papers' finding for their acoustic baselines).
func detectThenSweep(t *testing.T, dir string) {
	goldDev, goldAll := goldFile(t, dir, "dev"), goldFile(t, dir, "")
	for _, system := range []string{"rms", "webrtcvad", "silero"} {
		t.Run(system, func(t *testing.T) {
			dev, all := t.TempDir(), t.TempDir()
			stdout, stderr, code := run(t, "detect", "--system", system, "--corpus", dir, "--split", "dev", "--out", dev)
			if code != 0 || !strings.Contains(stdout, system+" (") || !strings.Contains(stdout, "3 conversations") || !strings.Contains(stderr, "detect "+system) {
				t.Fatalf("detect: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
			}
			for _, task := range []string{"eot", "int"} {
				stdout, stderr, code := run(t, "sweep", "--gold", goldDev, "--probs", filepath.Join(dev, "probs-"+task+".json"))
				last := lastLine(stdout)
				if code != 0 || !(strings.HasPrefix(last, "operating point: θ=") || strings.HasPrefix(last, "none in budget")) {
					t.Fatalf("sweep %s: exit %d, last line %q, stderr %q", task, code, last, stderr)
				}
			}
			if _, stderr, code := run(t, "detect", "--system", system, "--corpus", dir, "--out", all); code != 0 {
				t.Fatalf("detect --split all: exit %d: %s", code, stderr)
			}
			stdout, stderr, code = run(t, "sweep", "--gold", goldAll, "--probs", filepath.Join(all, "probs-eot.json"), "-o", "json")
			if code != 0 {
				t.Fatalf("sweep: exit %d: %s", code, stderr)
			}
			var res struct {
				Rows []struct {
					Theta  float64
					Recall *float64
					FPRate *float64 `json:"fp_rate"`
				}
			}
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatal(err)
			}
			// "High" on this 12-conversation corpus: a gate fires on every
			// pause, and its score is the 0/1 speech decision, so it has a
			// single firing operating point (Silero, the slowest to call
			// silence, reaches about 0.6); every gate must reach 0.5, never
			// within the budget.
			const high = 0.5
			best := 0.0
			for _, r := range res.Rows {
				if r.Recall == nil || *r.Recall < high {
					continue
				}
				best = max(best, *r.Recall)
				if r.FPRate == nil || *r.FPRate <= 0.10 {
					t.Errorf("θ=%v: EOT recall %v within the FP budget (fp_rate %v)", r.Theta, *r.Recall, r.FPRate)
				}
			}
			if best < high {
				t.Errorf("EOT recall never reaches %v at any threshold", high)
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// Bad input is one clear line on stderr, exit 1, and no output files.
func detectRejectsBadInput(t *testing.T, base string) {
	// The dev split's first and last conversations: a failure on the first
	// stops before any progress, one on the last after most of it.
	c, err := corpus.Open(base, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	dev, _ := c.Conversations("dev")
	first, last := dev[0].ID, dev[len(dev)-1].ID
	channel := func(dir string) string { return filepath.Join(dir, first, "speaker_1.wav") }
	samples, rate, err := audio.ReadWAV(channel(base))
	if err != nil || rate != 16000 {
		t.Fatalf("read %s: %v (%d Hz)", channel(base), err, rate)
	}
	specDir := t.TempDir()
	cases := []struct {
		name  string
		spoil func(t *testing.T, dir string)
		args  []string
		want  string
	}{
		{"stereo channel", func(t *testing.T, dir string) {
			writeStereo(t, channel(dir), samples)
		}, nil, "2 channels (want mono"},
		{"truncated channel", func(t *testing.T, dir string) {
			path := filepath.Join(dir, last, "speaker_2.wav")
			data, _ := os.ReadFile(path)
			os.WriteFile(path, data[:len(data)/2], 0o644)
		}, nil, "truncated"},
		{"not a WAV", func(t *testing.T, dir string) {
			os.WriteFile(channel(dir), []byte("RIFF but not really"), 0o644)
		}, nil, "speaker_1.wav"},
		{"missing model", nil, []string{"--system-spec", writeFile(t, specDir, "missing.yaml", "family: silero\nmodel: {path: nowhere.onnx}\n")}, "nowhere.onnx not found"},
		{"unknown tensor", nil, []string{"--system-spec", writeFile(t, specDir, "bad.yaml", strings.Replace(sileroSpec(t), "name: input", "name: pcm", 1))}, `audio "pcm": the model has no such input`},
		{"unknown parameter", nil, []string{"--system", "rms", "--param", "mode=3"}, `family rms has no parameter "mode"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := base
			if tc.spoil != nil {
				dir = copyCorpus(t, base)
				tc.spoil(t, dir)
			}
			args := tc.args
			if args == nil {
				args = []string{"--system", "rms"}
			}
			out := filepath.Join(t.TempDir(), "probs")
			_, stderr, code := run(t, append([]string{"detect", "--corpus", dir, "--split", "dev", "--out", out}, args...)...)
			// What a terminal shows last: the text after the last line
			// break or carriage return.
			shown := strings.TrimSpace(stderr)
			shown = shown[strings.LastIndexAny(shown, "\r\n")+1:]
			if code != 1 || !strings.HasPrefix(shown, "floorbench: ") || !strings.Contains(shown, tc.want) {
				t.Fatalf("exit %d, stderr %q; want one error line containing %q", code, stderr, tc.want)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Fatalf("left behind in --out: %v", entries)
			}
		})
	}
	// A channel at another rate is resampled on read, not rejected: the
	// detector sees the audio it saw at 16 kHz.
	t.Run("22.05 kHz channel", func(t *testing.T) {
		dir := copyCorpus(t, base)
		if err := audio.WriteWAV(channel(dir), audio.Resample(samples, 16000, 22050), 22050); err != nil {
			t.Fatal(err)
		}
		at16k, at22k := t.TempDir(), t.TempDir()
		for _, d := range [][2]string{{base, at16k}, {dir, at22k}} {
			if _, stderr, code := run(t, "detect", "--system", "rms", "--corpus", d[0], "--split", "dev", "--out", d[1]); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
		}
		for _, task := range []string{"eot", "int"} {
			want, got := readTracks(t, filepath.Join(at16k, "probs-"+task+".json")), readTracks(t, filepath.Join(at22k, "probs-"+task+".json"))
			for id, w := range want {
				g := got[id]
				if len(g) != len(w) {
					t.Fatalf("%s %s: %d speakers, want %d", task, id, len(g), len(w))
				}
				for k := range w {
					compareTrack(t, task+" "+id+" speaker "+strconv.Itoa(k+1), g[k], w[k], id == first && k == 0)
				}
			}
		}
	})
}

// readTracks reads a probability file's tracks by conversation and speaker.
func readTracks(t *testing.T, path string) map[string][][]float64 {
	t.Helper()
	p, err := score.ReadProbs(path, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	tracks := map[string][][]float64{}
	for _, c := range p.Conversations {
		tracks[c.ID] = c.Speakers
	}
	if len(tracks) == 0 {
		t.Fatalf("%s: no conversations", path)
	}
	return tracks
}

// compareTrack checks got against want frame by frame: equal for a track
// read from the same file, and for the resampled one (16 kHz to 22.05 kHz
// and back on read moves a level only slightly) the same frame count, at
// most 1% of frames off by more than 0.05, and scores that both rise
// above 0.5 and fall below it.
func compareTrack(t *testing.T, name string, got, want []float64, resampled bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d frames, want %d", name, len(got), len(want))
	}
	off, low, high := 0, 0, 0
	for i := range want {
		if math.Abs(got[i]-want[i]) > 0.05 || (!resampled && got[i] != want[i]) {
			off++
		}
		if got[i] < 0.5 {
			low++
		} else {
			high++
		}
	}
	if (resampled && (off > len(want)/100 || low == 0 || high == 0)) || (!resampled && off > 0) {
		t.Fatalf("%s: %d of %d frames differ from the 16 kHz run (%d below 0.5, %d above)", name, off, len(want), low, high)
	}
}

// sileroSpec is the internal/detect test spec running Silero through the
// generic onnx family.
func sileroSpec(t *testing.T) string {
	data, err := os.ReadFile("../../internal/detect/testdata/silero-onnx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// writeStereo writes samples twice interleaved as a 16-bit stereo WAV.
func writeStereo(t *testing.T, path string, samples []float32) {
	t.Helper()
	n := len(samples)
	b := make([]byte, 44+4*n)
	copy(b, "RIFF")
	le32(b[4:], uint32(36+4*n))
	copy(b[8:], "WAVEfmt ")
	le32(b[16:], 16)
	le16(b[20:], 1)
	le16(b[22:], 2)
	le32(b[24:], 16000)
	le32(b[28:], 16000*4)
	le16(b[32:], 4)
	le16(b[34:], 16)
	copy(b[36:], "data")
	le32(b[40:], uint32(4*n))
	for i, s := range samples {
		v := uint16(audio.PCM16(s))
		le16(b[44+4*i:], v)
		le16(b[46+4*i:], v)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func le16(b []byte, v uint16) { b[0], b[1] = byte(v), byte(v>>8) }
func le32(b []byte, v uint32) { le16(b, uint16(v)); le16(b[2:], uint16(v>>16)) }
