package corpus

import (
	"fmt"
	"path/filepath"
)

// Corpus is an opened native corpus: its folder and validated manifest.
type Corpus struct {
	Dir      string
	Manifest *Manifest
}

// Open reads and validates dir's manifest. It does not read audio; Check
// verifies the files against the manifest.
func Open(dir string) (*Corpus, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	return &Corpus{Dir: dir, Manifest: m}, nil
}

// Conversations returns the manifest's conversations of a split ("" for
// all), in manifest order.
func (c *Corpus) Conversations(split string) ([]Conversation, error) {
	if split != "" && split != "dev" && split != "test" {
		return nil, fmt.Errorf("split %q (want dev or test)", split)
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

// Events reads a conversation's event log and checks it belongs to it.
func (c *Corpus) Events(conv Conversation) (*EventLog, error) {
	path := filepath.Join(c.Dir, conv.ID, EventsName)
	l, err := ReadEvents(path)
	if err != nil {
		return nil, err
	}
	if l.ConversationID != conv.ID || l.Speakers != conv.Speakers || l.Duration != conv.Duration {
		return nil, fmt.Errorf("%s: describes %s (%d speakers, %v s), the manifest says %s (%d speakers, %v s)",
			path, l.ConversationID, l.Speakers, l.Duration, conv.ID, conv.Speakers, conv.Duration)
	}
	return l, nil
}
