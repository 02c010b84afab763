package corpus

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/redact"
)

// Corpus is an opened native corpus: its folder and validated manifest.
type Corpus struct {
	Dir      string
	Manifest *Manifest
}

// Open reads and validates dir's manifest. It does not read audio; Check
// verifies the files against the manifest. lim bounds the manifest's
// conversations.
func Open(dir string, lim limits.Limits) (*Corpus, error) {
	m, err := ReadManifest(dir, lim)
	if err != nil {
		return nil, err
	}
	return &Corpus{Dir: dir, Manifest: m}, nil
}

// Conversations returns the manifest's conversations of a split ("" for
// all), in manifest order.
func (c *Corpus) Conversations(split string) ([]Conversation, error) {
	if split != "" && split != "dev" && split != "test" {
		return nil, fmt.Errorf("split %s (want dev or test)", redact.Name(split))
	}
	var out []Conversation
	for _, conv := range c.Manifest.Conversations {
		if split == "" || conv.Split == split {
			out = append(out, conv)
		}
	}
	return out, nil
}

// ChannelPaths returns the paths of a conversation's speaker channels,
// speaker 1 first. Ids were validated, so the paths stay inside Dir.
func (c *Corpus) ChannelPaths(conv Conversation) []string {
	out := make([]string, conv.Speakers)
	for k := range out {
		out[k] = filepath.Join(c.Dir, conv.ID, ChannelName(k+1))
	}
	return out
}

// ReadChannel reads speaker k's channel (k from 1) of a conversation at
// the rate it was written (see OpenFile for what is refused).
func (c *Corpus) ReadChannel(conv Conversation, k int) ([]float32, int, error) {
	f, err := c.OpenFile(conv, ChannelName(k))
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	x, rate, err := audio.DecodeWAV(f)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return x, rate, nil
}

// ReadChannel16k is ReadChannel resampled to 16 kHz.
func (c *Corpus) ReadChannel16k(conv Conversation, k int) ([]float32, error) {
	x, rate, err := c.ReadChannel(conv, k)
	if err != nil {
		return nil, err
	}
	return audio.Resample(x, rate, audio.Rate), nil
}

// Channels16k reads every speaker's channel of conv resampled to 16 kHz
// (when it was written at another rate), checked against the manifest's
// length so that a truncated file is an error rather than silence.
func (c *Corpus) Channels16k(conv Conversation) ([][]float32, error) {
	out := make([][]float32, 0, conv.Speakers)
	for k := range conv.Speakers {
		x, err := c.channel16k(conv, k+1)
		if err != nil {
			return nil, fmt.Errorf("conversation %s: %w", redact.Name(conv.ID), err)
		}
		out = append(out, x)
	}
	return out, nil
}

// channel16k is speaker k's channel at 16 kHz, of the manifest's length
// give or take the one sample resampling may add or drop: every reader
// (detect, check, the viewer) takes a channel by this one rule.
func (c *Corpus) channel16k(conv Conversation, k int) ([]float32, error) {
	x, err := c.ReadChannel16k(conv, k)
	if err != nil {
		return nil, err
	}
	if err := checkLength(filepath.Join(c.Dir, conv.ID, ChannelName(k)), len(x), conv); err != nil {
		return nil, err
	}
	return x, nil
}

// ChannelReader reads one speaker's channel at 16 kHz a block at a time
// (OpenChannel16k); Close closes its file.
type ChannelReader struct {
	r    *audio.MonoReader
	f    *os.File
	path string
}

// Read fills p with the next samples, or as many as are left, and
// returns io.EOF once none are. Errors name the file.
func (r *ChannelReader) Read(p []float32) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("%s: %w", r.path, err)
	}
	return n, err
}

// Close closes the channel's file.
func (r *ChannelReader) Close() error { return r.f.Close() }

// OpenChannel16k opens speaker k's channel (k from 1) of conv to read at
// 16 kHz a block at a time: the samples, joined, are channel16k's, bit
// for bit, checked against the manifest's length by the same rule before
// any is read; a file that holds fewer samples than its header declares
// fails where the reading meets its end.
func (c *Corpus) OpenChannel16k(conv Conversation, k int) (*ChannelReader, error) {
	f, err := c.OpenFile(conv, ChannelName(k))
	if err != nil {
		return nil, fmt.Errorf("conversation %s: %w", redact.Name(conv.ID), err)
	}
	path := filepath.Join(c.Dir, conv.ID, ChannelName(k))
	r, err := audio.NewMonoReader(f, audio.Rate)
	if err != nil {
		err = fmt.Errorf("%s: %w", path, err)
	} else {
		err = checkLength(path, r.Len(), conv)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("conversation %s: %w", redact.Name(conv.ID), err)
	}
	return &ChannelReader{r: r, f: f, path: path}, nil
}

// checkLength holds a channel of n samples at 16 kHz to the manifest's
// length, give or take the one sample resampling may add or drop.
func checkLength(path string, n int, conv Conversation) error {
	if d := n - conv.Samples; d < -1 || d > 1 {
		return fmt.Errorf("%s has %d samples at 16 kHz, the manifest says %d", path, n, conv.Samples)
	}
	return nil
}

// readLabelsFile reads a conversation's labels file whole (it is bounded
// by MaxFileSize).
func (c *Corpus) readLabelsFile(conv Conversation, name string) ([]byte, string, error) {
	f, err := c.OpenFile(conv, name)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize(conv, name)))
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", f.Name(), err)
	}
	return data, f.Name(), nil
}

// Events reads a conversation's event log and checks it belongs to it.
func (c *Corpus) Events(conv Conversation) (*EventLog, error) {
	data, path, err := c.readLabelsFile(conv, EventsName)
	if err != nil {
		return nil, err
	}
	l, err := parseEventsOf(conv, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// parseEventsOf parses conversation conv's event log and checks it
// belongs to it.
func parseEventsOf(conv Conversation, data []byte) (*EventLog, error) {
	l, err := ParseEvents(data)
	if err != nil {
		return nil, err
	}
	if l.ConversationID != conv.ID || l.Speakers != conv.Speakers || l.Duration != conv.Duration {
		return nil, fmt.Errorf("describes %s (%d speakers, %v s), the manifest says %s (%d speakers, %v s)",
			l.ConversationID, l.Speakers, l.Duration, conv.ID, conv.Speakers, conv.Duration)
	}
	return l, nil
}

// annotations reads a TurnBench conversation's annotations.json.
func (c *Corpus) annotations(conv Conversation) ([]TurnBenchConversation, string, error) {
	data, path, err := c.readLabelsFile(conv, AnnotationsName)
	if err != nil {
		return nil, "", err
	}
	convs, err := ParseTurnBenchAnnotations(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return convs, path, nil
}
