package generate

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
)

func TestTinyCorpusInvariants(t *testing.T) {
	dir := tiny(t)
	c, err := corpus.Open(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	s, err := corpus.ComputeStats(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if s.Conversations != 12 || s.Dev != 3 || s.Test != 9 || len(s.ByType) != 6 || len(s.BySpeakers) != 4 {
		t.Fatalf("%d conversations (%d dev, %d test), %d types, %d speaker counts", s.Conversations, s.Dev, s.Test, len(s.ByType), len(s.BySpeakers))
	}
	for _, v := range s.Voices["dev"] {
		for _, w := range s.Voices["test"] {
			if v == w {
				t.Fatalf("voice %s in dev and test", v)
			}
		}
	}
	if s.OverlapEvents == 0 || s.OverlapRealised < 0.97 {
		t.Fatalf("%d overlap events, %.3f realised", s.OverlapEvents, s.OverlapRealised)
	}
	for _, conv := range c.Manifest.Conversations {
		seen := map[string]bool{}
		for _, v := range conv.Voices {
			if seen[v] {
				t.Fatalf("%s: voice %s twice", conv.ID, v)
			}
			seen[v] = true
		}
		for k, snr := range conv.SNR {
			if snr < 20 || snr > 38 || conv.Noise[k] == "" {
				t.Fatalf("%s speaker %d: SNR %v noise %q", conv.ID, k+1, snr, conv.Noise[k])
			}
		}
		for _, p := range c.ChannelPaths(conv) {
			x, rate, err := audio.ReadWAV(p)
			if err != nil || rate != 16000 || len(x) != conv.Samples {
				t.Fatalf("%s: rate %d, %d samples of %d, %v", p, rate, len(x), conv.Samples, err)
			}
		}
	}
	// The check compares every event boundary with the audio (10 ms) and
	// looks for clipping.
	r, err := corpus.Check(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) > 0 || r.Boundaries < 100 {
		t.Fatalf("check: %d boundaries, problems %v", r.Boundaries, r.Problems)
	}
}

func TestTinyGoldFollowsTheEventLogs(t *testing.T) {
	dir := tiny(t)
	dev, err := corpus.Gold(dir, "dev", limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	all, err := corpus.Gold(dir, "", limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if len(dev.Conversations) != 3 || len(all.Conversations) != 12 {
		t.Fatalf("%d dev and %d total gold conversations", len(dev.Conversations), len(all.Conversations))
	}
	c, _ := corpus.Open(dir, limits.Default())
	for i, conv := range c.Manifest.Conversations {
		log, _ := c.Events(conv)
		g := all.Conversations[i]
		yielded, claims := 0, map[float64]bool{}
		for _, e := range log.Events {
			if e.Kind == floor.Turn && e.Ending == floor.Yielded {
				yielded++
			}
			if e.Kind == floor.Interruption {
				claims[e.Start] = true
			}
		}
		if g.ID != conv.ID || len(g.EOT.Positives) != yielded || len(g.INT.Positives) != len(claims) {
			t.Fatalf("%s: %d EOT positives for %d yielded turns, %d INT positives for %d claims", conv.ID, len(g.EOT.Positives), yielded, len(g.INT.Positives), len(claims))
		}
		for _, a := range g.INT.Positives {
			if !claims[a.Time] {
				t.Fatalf("%s: INT positive at %v is no claim onset", conv.ID, a.Time)
			}
		}
		for _, a := range g.EOT.Positives {
			if a.Time <= 0 || a.Time >= conv.Duration {
				t.Fatalf("%s: EOT anchor at %v outside (0, %v)", conv.ID, a.Time, conv.Duration)
			}
		}
	}
	if _, err := corpus.Gold(dir, "train", limits.Default()); err == nil {
		t.Fatal("split train accepted")
	}
}

func TestJobsDoNotChangeBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("a second generation of the tiny corpus: skipped with -short")
	}
	dir := tiny(t)
	other := filepath.Join(t.TempDir(), "jobs1")
	if _, err := Corpus(context.Background(), Options{Preset: "tiny", Seed: 1, Out: other, Jobs: 1, Engines: engines(t)}); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		a, _ := os.ReadFile(path)
		b, err := os.ReadFile(filepath.Join(other, rel))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between --jobs 2 and --jobs 1 (%v)", rel, err)
		}
		n++
		return nil
	})
	if err != nil || n < 12*3 {
		t.Fatalf("compared %d files: %v", n, err)
	}
}

// copyCorpus copies the shared tiny corpus so a test can damage it.
func copyCorpus(t *testing.T) string {
	dst := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(dst, os.DirFS(tiny(t))); err != nil {
		t.Fatal(err)
	}
	return dst
}

func checkProblems(t *testing.T, dir string) string {
	r, err := corpus.Check(dir, limits.Default())
	if err != nil {
		return err.Error()
	}
	var s []string
	for _, p := range r.Problems {
		s = append(s, p.String())
	}
	return strings.Join(s, "\n")
}

func TestCheckCatchesMisalignedEvents(t *testing.T) {
	dir := copyCorpus(t)
	c, _ := corpus.Open(dir, limits.Default())
	conv := c.Manifest.Conversations[0]
	log, _ := c.Events(conv)
	// Shift one turn 20 ms late, as an off-by-some-samples bug would,
	// and keep the manifest's hash in step so only the timing is wrong.
	for i, e := range log.Events {
		if e.Kind == floor.Turn {
			log.Events[i].Start += 0.02
			break
		}
	}
	data, _ := log.Encode()
	path := filepath.Join(dir, conv.ID, corpus.EventsName)
	os.WriteFile(path, data, 0o644)
	sum, _ := digest.FileSHA256(path)
	c.Manifest.Conversations[0].Files[corpus.EventsName] = sum
	corpus.WriteManifest(dir, c.Manifest)
	if p := checkProblems(t, dir); !strings.Contains(p, "TURN start") || !strings.Contains(p, "speech energy 10 to 30 ms outside it") {
		t.Fatalf("a turn logged 20 ms late passed the check: %q", p)
	}
}

func TestCheckCatchesDamageAndLeftovers(t *testing.T) {
	dir := copyCorpus(t)
	c, _ := corpus.Open(dir, limits.Default())
	conv := c.Manifest.Conversations[1]
	wav := c.ChannelPaths(conv)[0]
	data, _ := os.ReadFile(wav)
	data[len(data)-1] ^= 1
	os.WriteFile(wav, data, 0o644)
	os.Mkdir(filepath.Join(dir, corpus.PartialPrefix+"tiny-99-x"), 0o755)
	p := checkProblems(t, dir)
	if !strings.Contains(p, filepath.Join(conv.ID, "speaker_1.wav")+": sha256") || !strings.Contains(p, ".partial-tiny-99-x is not in the manifest") {
		t.Fatalf("problems: %q", p)
	}
}
