package detect

import (
	"context"
	"fmt"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/corpus"
)

// CorpusSource reads the given conversations of an opened native corpus,
// one at a time, resampling channels to 16 kHz when stored at another rate.
func CorpusSource(c *corpus.Corpus, convs []corpus.Conversation) Source {
	return Source{
		Count: len(convs),
		Load: func(_ context.Context, i int) (*Conversation, error) {
			return LoadConversation(c, convs[i])
		},
	}
}

// LoadConversation reads one conversation's channels.
func LoadConversation(c *corpus.Corpus, conv corpus.Conversation) (*Conversation, error) {
	out := &Conversation{ID: conv.ID, SampleRate: SampleRate, Duration: conv.Duration}
	for _, path := range c.ChannelPaths(conv) {
		samples, err := audio.ReadWAV16k(path)
		if err != nil {
			return nil, fmt.Errorf("conversation %q: %w", conv.ID, err)
		}
		out.Channels = append(out.Channels, samples)
	}
	return out, nil
}
