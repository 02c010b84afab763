package generate

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/atomicfile"
	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/synth"
)

// WriteConversation writes c into dir/<id>: first into a temporary folder
// beside it, then renamed into place (atomicfile.ReplaceDir), so a
// conversation folder is either complete or absent. It returns the manifest entry.
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
	err := atomicfile.ReplaceDir(filepath.Join(dir, c.Spec.ID), corpus.PartialPrefix, func(tmp string) error {
		for k, ch := range c.Channels {
			name := corpus.ChannelName(k + 1)
			if err := audio.WriteWAV(filepath.Join(tmp, name), ch, audio.Rate); err != nil {
				return fmt.Errorf("%s: %w", c.Spec.ID, err)
			}
		}
		log := corpus.EventLog{SchemaVersion: corpus.SchemaVersion, ConversationID: c.Spec.ID, Duration: e.Duration,
			Speakers: c.Spec.Speakers, Events: c.Events}
		data, err := log.Encode()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, corpus.EventsName), data, 0o644); err != nil {
			return err
		}
		for _, name := range corpus.FileNames(c.Spec.Speakers) {
			if e.Files[name], err = digest.FileSHA256(filepath.Join(tmp, name)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return corpus.Conversation{}, err
	}
	return e, nil
}

// round3 keeps SNRs to a thousandth of a dB in the manifest.
func round3(x float64) float64 {
	return float64(int64(x*1000+0.5)) / 1000
}
