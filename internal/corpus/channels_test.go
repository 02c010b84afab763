package corpus_test

import (
	"fmt"
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
