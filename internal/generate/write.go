package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/synth"
)

// partialPrefix starts the name of a conversation folder being written.
// Such folders are never listed in a manifest, so Check rejects them.
const partialPrefix = ".partial-"

// WriteConversation writes c into dir/<id>: first into a temporary folder
// beside it, then renamed into place, so a conversation folder is either
// complete or absent. It returns the manifest entry.
func WriteConversation(dir string, c synth.Conversation) (Conversation, error) {
	e := Conversation{
		ID: c.Spec.ID, Split: string(c.Spec.Split), InteractionType: string(c.Spec.Type),
		Speakers: c.Spec.Speakers, Topic: c.Topic, Samples: len(c.Channels[0]),
		Duration: c.Duration(), Files: map[string]string{},
	}
	for k := range c.Channels {
		e.Voices = append(e.Voices, c.Cast.Voices[k].ID)
		e.SNR = append(e.SNR, round3(c.Acoustics[k].SNR))
		e.Noise = append(e.Noise, string(c.Acoustics[k].Noise))
	}
	tmp, err := os.MkdirTemp(dir, partialPrefix+c.Spec.ID+"-")
	if err != nil {
		return Conversation{}, err
	}
	defer os.RemoveAll(tmp)
	for k, ch := range c.Channels {
		name := ChannelName(k + 1)
		if err := audio.WriteWAV(filepath.Join(tmp, name), ch, audio.Rate); err != nil {
			return Conversation{}, fmt.Errorf("%s: %w", c.Spec.ID, err)
		}
	}
	log := EventLog{SchemaVersion: SchemaVersion, ConversationID: c.Spec.ID, Duration: e.Duration,
		Speakers: c.Spec.Speakers, Events: c.Events}
	data, err := encode(log)
	if err != nil {
		return Conversation{}, err
	}
	if err := os.WriteFile(filepath.Join(tmp, EventsName), data, 0o644); err != nil {
		return Conversation{}, err
	}
	for _, name := range FileNames(c.Spec.Speakers) {
		sum, err := FileSHA256(filepath.Join(tmp, name))
		if err != nil {
			return Conversation{}, err
		}
		e.Files[name] = sum
	}
	final := filepath.Join(dir, c.Spec.ID)
	if err := os.RemoveAll(final); err != nil {
		return Conversation{}, err
	}
	if err := os.Rename(tmp, final); err != nil {
		return Conversation{}, err
	}
	return e, nil
}

// WriteManifest writes corpus.json atomically (temp file, then rename):
// it is written last, so a corpus with a manifest is a finished corpus.
func WriteManifest(dir string, m *Manifest) error {
	data, err := encode(m)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, partialPrefix+ManifestName)
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, ManifestName))
}

// FileSHA256 is the hex sha256 of a file, read as a stream (parquet
// shards, meeting recordings and models are large).
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// round3 keeps SNRs to a thousandth of a dB in the manifest.
func round3(x float64) float64 {
	return float64(int64(x*1000+0.5)) / 1000
}
