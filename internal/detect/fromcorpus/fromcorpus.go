package detect

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/corpus"
)

// CorpusSource reads the conversations of a native corpus's split ("" for
// all) one at a time: each speaker's WAV file, resampled to 16 kHz when it
// was written at another rate, and checked against the manifest's length
// so that a truncated file is an error rather than silence.
func CorpusSource(c *corpus.Corpus, split string) (Source, error) {
	convs, err := c.Conversations(split)
	if err != nil {
		return Source{}, err
	}
	load := func(ctx context.Context, i int) (*Conversation, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return LoadConversation(c, convs[i])
	}
	return Source{Count: len(convs), Load: load}, nil
}

// LoadConversation reads one conversation of a native corpus (see
// CorpusSource).
func LoadConversation(c *corpus.Corpus, conv corpus.Conversation) (*Conversation, error) {
	out := &Conversation{ID: conv.ID, SampleRate: SampleRate, Duration: conv.Duration}
	for k := range conv.Speakers {
		x, err := c.ReadChannel16k(conv, k+1)
		if err != nil {
			return nil, fmt.Errorf("conversation %q: %w", conv.ID, err)
		}
		if d := len(x) - conv.Samples; d < -1 || d > 1 {
			return nil, fmt.Errorf("conversation %q: %s has %d samples at 16 kHz, the manifest says %d", conv.ID, filepath.Join(c.Dir, conv.ID, corpus.ChannelName(k+1)), len(x), conv.Samples)
		}
		out.Channels = append(out.Channels, x)
	}
	return out, nil
}
