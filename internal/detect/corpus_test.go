package detect

import (
	"context"
	"os/exec"
	"testing"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/generate"
	"github.com/floorbench/floorbench/internal/limits"
)

// tinyCorpus generates the tiny preset (seed 1) into a temporary folder.
func tinyCorpus(t *testing.T) *corpus.Corpus {
	t.Helper()
	for _, tool := range []string{"espeak-ng", "flite"} {
		_, err := exec.LookPath(tool)
		requireTool(t, err == nil, tool+" (setup component speech)")
	}
	dir := t.TempDir()
	if _, err := generate.Corpus(context.Background(), generate.Options{Preset: "tiny", Seed: 1, Out: dir, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	c, err := corpus.Open(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// speechOf reports whether the event log has speaker k (from 1) vocalising
// at time at: inside one of their events and outside its hold pauses.
func speechOf(events []floor.Event, k int, at float64) bool {
	for _, e := range events {
		if e.Speaker != k || at < e.Start || at >= e.End {
			continue
		}
		for _, h := range e.Holds {
			if at >= h.Start && at < h.End {
				return false
			}
		}
		return true
	}
	return false
}

// On the tiny corpus, Silero's per-frame speech decision agrees
// with the generator's event log at least 90% of the time on channels with
// white or pink noise. Babble noise is other people's speech, which a
// speech detector rightly hears even 20–38 dB down; those channels are
// left out.
func TestSileroAgreesWithTheTinyCorpusEventLog(t *testing.T) {
	rt := onnxRuntime(t)
	c := tinyCorpus(t)
	s, _ := Builtin("silero")
	d, err := s.Open(rt)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	m := d.(*audioDetector).model
	const fps = 50
	agree, total := 0, 0
	for _, entry := range c.Manifest.Conversations {
		channels, err := c.Channels16k(entry)
		if err != nil {
			t.Fatal(err)
		}
		conv := &Conversation{ID: entry.ID, SampleRate: SampleRate, Duration: entry.Duration, Channels: channels}
		log, err := c.Events(entry)
		if err != nil {
			t.Fatal(err)
		}
		grid, err := activityOnGrid(context.Background(), m, conv, fps)
		if err != nil {
			t.Fatal(err)
		}
		a, n := 0, 0
		for k, track := range grid {
			if entry.Noise[k] == "babble" {
				continue
			}
			for f, v := range track {
				if (v >= 0.5) == speechOf(log.Events, k+1, float64(f+1)/fps) {
					a++
				}
				n++
			}
		}
		t.Logf("%s: %.3f", conv.ID, float64(a)/float64(n))
		agree, total = agree+a, total+n
	}
	got := float64(agree) / float64(total)
	t.Logf("Silero agrees with the event logs on %.3f of %d frames", got, total)
	if got < 0.90 {
		t.Errorf("Silero agrees with the tiny corpus's event logs on %.3f of frames, want >= 0.90", got)
	}
}
