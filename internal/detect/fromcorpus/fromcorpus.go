// Package fromcorpus reads the conversations of a native corpus as
// detector input, so that neither internal/corpus nor internal/detect
// needs the other.
package fromcorpus

import (
	"context"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
)

// Source reads the conversations of a native corpus's split ("" for all)
// one at a time (see Conversation).
func Source(c *corpus.Corpus, split string) (detect.Source, error) {
	convs, err := c.Conversations(split)
	if err != nil {
		return detect.Source{}, err
	}
	load := func(ctx context.Context, i int) (*detect.Conversation, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return Conversation(c, convs[i])
	}
	return detect.Source{Count: len(convs), Load: load}, nil
}

// Conversation reads one conversation of a native corpus: each speaker's
// channel at 16 kHz, checked against the manifest's length
// (corpus.Corpus.Channels16k).
func Conversation(c *corpus.Corpus, conv corpus.Conversation) (*detect.Conversation, error) {
	channels, err := c.Channels16k(conv)
	if err != nil {
		return nil, err
	}
	return &detect.Conversation{ID: conv.ID, SampleRate: detect.SampleRate, Duration: conv.Duration, Channels: channels}, nil
}

// Stream is Conversation with channels read a block at a time as a
// detector reads them (corpus.Corpus.OpenChannel16k), so that a model
// stage holds a window of each channel, not the whole: the samples are
// Conversation's, bit for bit.
func Stream(c *corpus.Corpus, conv corpus.Conversation) *detect.Conversation {
	open := func(k int) (detect.ChannelReader, error) { return c.OpenChannel16k(conv, k+1) }
	return &detect.Conversation{ID: conv.ID, SampleRate: detect.SampleRate, Duration: conv.Duration, Speakers: conv.Speakers, Open: open}
}
