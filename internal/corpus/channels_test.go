package corpus_test

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/corpus"
)

// Channels16k gives one channel per speaker, each as long as the manifest
// says; a channel that is shorter is an error naming the file and both
// lengths, not silence.
func TestChannels16kChecksTheManifestLength(t *testing.T) {
	t.Parallel()
	c := fixture(t)
	conv := c.Manifest.Conversations[0]
	channels, err := c.Channels16k(conv)
	if err != nil {
		t.Fatal(err)
	}
	if len(channels) != conv.Speakers {
		t.Fatalf("%d channels for %d speakers", len(channels), conv.Speakers)
	}
	for k, x := range channels {
		if len(x) != conv.Samples {
			t.Errorf("channel %d: %d samples, manifest %d", k+1, len(x), conv.Samples)
		}
	}
	wav := filepath.Join(c.Dir, conv.ID, corpus.ChannelName(2))
	if err := audio.WriteWAV(wav, channels[1][:conv.Samples/2], audio.Rate); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("conversation %q: %s has %d samples at 16 kHz, the manifest says %d", conv.ID, wav, conv.Samples/2, conv.Samples)
	if _, err := c.Channels16k(conv); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("truncated channel: %v\nwant %s", err, want)
	}
}

// A model stage reads a channel a block at a time (OpenChannel16k): the
// samples are Channels16k's, bit for bit, at 16 kHz and from a file at
// another rate, and a channel of the wrong length is refused as
// Channels16k refuses it, before any sample is read.
func TestOpenChannel16kGivesChannels16ksSamples(t *testing.T) {
	t.Parallel()
	c := fixture(t)
	conv := c.Manifest.Conversations[0]
	channels, err := c.Channels16k(conv)
	if err != nil {
		t.Fatal(err)
	}
	wav := filepath.Join(c.Dir, conv.ID, corpus.ChannelName(2))
	if err := audio.WriteWAV(wav, audio.Resample(channels[1], audio.Rate, 22050), 22050); err != nil {
		t.Fatal(err)
	}
	if channels, err = c.Channels16k(conv); err != nil {
		t.Fatal(err)
	}
	for k, want := range channels {
		r, err := c.OpenChannel16k(conv, k+1)
		if err != nil {
			t.Fatal(err)
		}
		var got []float32
		buf := make([]float32, 1000)
		for {
			n, err := r.Read(buf)
			got = append(got, buf[:n]...)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("channel %d: %d samples read, Channels16k %d", k+1, len(got), len(want))
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("channel %d sample %d: %v read, Channels16k %v", k+1, i, got[i], want[i])
			}
		}
	}
	if err := audio.WriteWAV(wav, channels[1][:conv.Samples/2], audio.Rate); err != nil {
		t.Fatal(err)
	}
	_, want := c.Channels16k(conv)
	if _, err := c.OpenChannel16k(conv, 2); err == nil || want == nil || err.Error() != want.Error() {
		t.Fatalf("truncated channel: %v\nwant %v", err, want)
	}
}
