package corpus_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/limits"
)

// A channel written at another rate (8 kHz here) is read resampled to
// 16 kHz by every reader, as docs/formats.md#channels says: Check accepts
// it when its length at 16 kHz is the manifest's, and Channels16k (what
// detect reads) gives the same length; one that is too short at 16 kHz is
// refused by both with the same message.
func TestEveryReaderResamplesAChannelOfAnotherRate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "c")
	if err := auditfixture.Write(dir, auditfixture.Small(), 1); err != nil {
		t.Fatal(err)
	}
	c, err := corpus.Open(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	conv := c.Manifest.Conversations[0]
	x, _, err := c.ReadChannel(conv, 1)
	if err != nil {
		t.Fatal(err)
	}
	rewrite := func(samples []float32) {
		t.Helper()
		path := filepath.Join(dir, conv.ID, corpus.ChannelName(1))
		if err := audio.WriteWAV(path, samples, 8000); err != nil {
			t.Fatal(err)
		}
		sum, err := digest.FileSHA256(path)
		if err != nil {
			t.Fatal(err)
		}
		c.Manifest.Conversations[0].Files[corpus.ChannelName(1)] = sum
		data, err := c.Manifest.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, corpus.ManifestName), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	low := audio.Resample(x, audio.Rate, 8000)
	rewrite(low)
	report, err := corpus.Check(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range report.Problems {
		if p.Conversation == conv.ID {
			t.Errorf("check refuses the 8 kHz channel: %s", p)
		}
	}
	c, err = corpus.Open(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	channels, err := c.Channels16k(c.Manifest.Conversations[0])
	if err != nil || len(channels[0]) < conv.Samples-1 || len(channels[0]) > conv.Samples+1 {
		t.Fatalf("Channels16k: %v", err)
	}

	rewrite(low[:len(low)/2])
	report, err = corpus.Check(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	c, _ = corpus.Open(dir, limits.Default())
	_, detectErr := c.Channels16k(c.Manifest.Conversations[0])
	found := false
	for _, p := range report.Problems {
		found = found || (p.Conversation == conv.ID && detectErr != nil && strings.Contains(detectErr.Error(), p.Msg))
	}
	if !found {
		t.Errorf("a short channel: check %v; detect %v; want both to refuse it alike", report.Problems, detectErr)
	}
}
