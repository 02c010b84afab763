package generate

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/synth"
)

// WriteConversation writes c into dir/<id>: first into a temporary folder
// beside it, then renamed into place, so a conversation folder is either
// complete or absent. It returns the manifest entry.
func WriteConversation(dir string, c synth.Conversation) (corpus.Conversation, error) {
	e := corpus.Conversation{
		ID: c.Spec.ID, Split: string(c.Spec.Split), InteractionType: string(c.Spec.Type),
		Speakers: c.Spec.Speakers, Topic: c.Topic, Samples: len(c.Channels[0]),
		Duration: c.Duration(), CacheKeys: c.Sources, Files: map[string]string{},
	}
	for k := range c.Channels {
		e.Voices = append(e.Voices, c.Cast.Voices[k].ID)
		e.SNR = append(e.SNR, round3(c.Acoustics[k].SNR))
		e.Noise = append(e.Noise, string(c.Acoustics[k].Noise))
	}
	tmp, err := os.MkdirTemp(dir, corpus.PartialPrefix+c.Spec.ID+"-")
	if err != nil {
		return corpus.Conversation{}, err
	}
	defer os.RemoveAll(tmp)
	for k, ch := range c.Channels {
		name := corpus.ChannelName(k + 1)
		if err := audio.WriteWAV(filepath.Join(tmp, name), ch, audio.Rate); err != nil {
			return corpus.Conversation{}, fmt.Errorf("%s: %w", c.Spec.ID, err)
		}
	}
	log := corpus.EventLog{SchemaVersion: corpus.SchemaVersion, ConversationID: c.Spec.ID, Duration: e.Duration,
		Speakers: c.Spec.Speakers, Events: c.Events}
	data, err := log.Encode()
	if err != nil {
		return corpus.Conversation{}, err
	}
	if err := os.WriteFile(filepath.Join(tmp, corpus.EventsName), data, 0o644); err != nil {
		return corpus.Conversation{}, err
	}
	for _, name := range corpus.FileNames(c.Spec.Speakers) {
		sum, err := digest.FileSHA256(filepath.Join(tmp, name))
		if err != nil {
			return corpus.Conversation{}, err
		}
		e.Files[name] = sum
	}
	final := filepath.Join(dir, c.Spec.ID)
	if err := os.RemoveAll(final); err != nil {
		return corpus.Conversation{}, err
	}
	if err := os.Rename(tmp, final); err != nil {
		return corpus.Conversation{}, err
	}
	return e, nil
}

// round3 keeps SNRs to a thousandth of a dB in the manifest.
func round3(x float64) float64 {
	return float64(int64(x*1000+0.5)) / 1000
}
