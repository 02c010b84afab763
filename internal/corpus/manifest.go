package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/floorbench/floorbench/internal/dialogue"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/redact"
)

// Writer is what a manifest records as the code that wrote it: the
// component (the generator, an ingester) and its own version, bumped with
// any change that changes a byte it writes. Never the binary's revision
// (version.Code): the same preset and seed, or the same source files, give
// the same corpus.json, hence the same corpus hash, in every build
// (docs/architecture.md#identities-and-versions).
func Writer(component string, version int) string {
	return fmt.Sprintf("floorbench %s %d", component, version)
}

// Format constants of the native corpus.
const (
	ManifestName    = "corpus.json"
	EventsName      = "events.json"
	AnnotationsName = "annotations.json"
	KindMPTB        = "mptb"
	KindTurnBench   = "turnbench"
	KindAMI         = "ami"
	SchemaVersion   = 1
	SampleRate      = 16000
	maxSpeakers     = 16
	maxManifest     = 64 << 20 // bytes; a manifest of 10,000 conversations is about 5 MB
)

// Manifest is corpus.json.
type Manifest struct {
	SchemaVersion int    `json:"schema_version"`
	Kind          string `json:"kind"`
	Preset        string `json:"preset"`
	Seed          uint64 `json:"seed"`
	CodeVersion   string `json:"code_version"`
	SampleRate    int    `json:"sample_rate_hz"`
	// Source says where an ingested corpus came from (file names and their
	// sha256); empty for generated corpora.
	Source []SourceFile `json:"source,omitempty"`
	// Backends are the generative backends a generated corpus was made
	// with; empty with the offline ones (templates, espeak-ng and flite).
	Backends      []Backend      `json:"backends,omitempty"`
	Conversations []Conversation `json:"conversations"`
}

// Backend is a generative backend of a generated corpus: the stage it
// served (dialogue or voices), its name, its model and the parameters
// that decide its outputs. Where it was served from is not recorded.
type Backend struct {
	Stage  string            `json:"stage"`
	Name   string            `json:"name"`
	Model  string            `json:"model"`
	Params map[string]string `json:"params,omitempty"`
}

// SourceFile is one input file of an ingested corpus.
type SourceFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Conversation is one manifest entry.
type Conversation struct {
	ID              string    `json:"id"`
	Split           string    `json:"split"`
	InteractionType string    `json:"interaction_type"`
	Speakers        int       `json:"speakers"`
	Topic           string    `json:"topic"`
	Voices          []string  `json:"voices"`
	Duration        float64   `json:"duration_s"`
	Samples         int       `json:"samples"`
	SNR             []float64 `json:"snr_db,omitempty"`
	Noise           []string  `json:"noise,omitempty"`
	// Channels names each speaker as the source does (AMI's A-E, TurnBench's
	// speaker_1/speaker_2); empty for generated corpora.
	Channels []string `json:"channels,omitempty"`
	// Unlabelled is true for audio without labels (TurnBench's held-out
	// test): it can be detected but not scored.
	Unlabelled bool `json:"unlabelled,omitempty"`
	// CacheKeys are the store keys of the cached generative outputs (chat
	// answers, rendered utterances) the conversation was made from, in
	// the order first used; empty with the offline backends.
	CacheKeys []string `json:"cache_keys,omitempty"`
	// Files maps every file of the conversation's folder to its sha256.
	Files map[string]string `json:"files"`
}

// ChannelName is the file name of speaker k's channel (k from 1).
func ChannelName(k int) string { return fmt.Sprintf("speaker_%d.wav", k) }

// FileNames lists the files a conversation with n speakers must have in
// a generated corpus.
func FileNames(n int) []string {
	out := []string{EventsName}
	for k := 1; k <= n; k++ {
		out = append(out, ChannelName(k))
	}
	return out
}

// LabelsName is the file holding a conversation's labels in a corpus of
// the kind: the event log (MPTB, AMI's derived floor events) or the raw
// TurnBench annotations.
func LabelsName(kind string) string {
	if kind == KindTurnBench {
		return AnnotationsName
	}
	return EventsName
}

// FilesOf lists the files conversation c must have in a corpus of the kind:
// one channel per speaker and, unless unlabelled, its labels.
func FilesOf(kind string, c Conversation) []string {
	var out []string
	if !c.Unlabelled {
		out = append(out, LabelsName(kind))
	}
	for k := 1; k <= c.Speakers; k++ {
		out = append(out, ChannelName(k))
	}
	return out
}

// ReadManifest reads and validates dir/corpus.json, bounded by lim.
func ReadManifest(dir string, lim limits.Limits) (*Manifest, error) {
	m, _, err := ReadManifestRaw(dir, lim)
	return m, err
}

// ReadManifestRaw is ReadManifest that also returns the bytes read, from
// which the corpus's hash is computed. corpus.json must be a regular file.
func ReadManifestRaw(dir string, lim limits.Limits) (*Manifest, []byte, error) {
	path := filepath.Join(dir, ManifestName)
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s: no %s: not a floorbench corpus (or its generation did not finish)", dir, ManifestName)
		}
		return nil, nil, err
	}
	if err := regularFile(fi); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	m, err := ParseManifest(data, lim)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, data, nil
}

// ParseManifest decodes a manifest strictly (no unknown fields, no
// trailing data) and validates it, so that nothing a manifest says can
// point outside the corpus folder. lim bounds its conversations.
func ParseManifest(data []byte, lim limits.Limits) (*Manifest, error) {
	if len(data) > maxManifest {
		return nil, fmt.Errorf("manifest larger than %d bytes", maxManifest)
	}
	var m Manifest
	if err := decodeStrict(data, &m); err != nil {
		return nil, err
	}
	return &m, m.Validate(lim)
}

// Validate checks every field a reader relies on, and the number and
// durations of the conversations against lim.
func (m *Manifest) Validate(l limits.Limits) error {
	if m.SchemaVersion != SchemaVersion {
		return fmt.Errorf("schema_version %d (this floorbench reads %d)", m.SchemaVersion, SchemaVersion)
	}
	if m.Kind != KindMPTB && m.Kind != KindTurnBench && m.Kind != KindAMI {
		return fmt.Errorf("kind %s (want %s, %s or %s)", redact.Name(m.Kind), KindMPTB, KindTurnBench, KindAMI)
	}
	if m.SampleRate != SampleRate {
		return fmt.Errorf("sample_rate_hz %d (want %d)", m.SampleRate, SampleRate)
	}
	if err := l.CheckConversations("conversations", len(m.Conversations)); err != nil {
		return err
	}
	for i, b := range m.Backends {
		if b.Stage == "" || b.Name == "" || b.Model == "" {
			return fmt.Errorf("backends[%d]: stage, name and model are required", i)
		}
	}
	seen := map[string]bool{}
	for i, c := range m.Conversations {
		if err := c.validate(m.Kind); err != nil {
			return fmt.Errorf("conversation %d: %w", i, err)
		}
		for k, key := range c.CacheKeys {
			if !keys.IsGenerative(key) {
				return fmt.Errorf("conversation %d: cache_keys[%d] %s: not a key of a cached generative output", i, k, redact.Name(key))
			}
		}
		if err := l.CheckDuration(fmt.Sprintf("conversation %q duration_s", c.ID), c.Duration); err != nil {
			return err
		}
		if seen[c.ID] {
			return fmt.Errorf("conversation %s listed twice", redact.Name(c.ID))
		}
		seen[c.ID] = true
	}
	return nil
}

func (c *Conversation) validate(kind string) error {
	if !dialogue.ValidID(c.ID) {
		return fmt.Errorf("id %s: want lower-case letters, digits, - and _ (it names a folder)", redact.Name(c.ID))
	}
	if c.Split != string(dialogue.Dev) && c.Split != string(dialogue.Test) {
		return fmt.Errorf("%s: split %s (want dev or test)", c.ID, redact.Name(c.Split))
	}
	if c.Speakers < 1 || c.Speakers > maxSpeakers {
		return fmt.Errorf("%s: %d speakers (want 1 to %d)", c.ID, c.Speakers, maxSpeakers)
	}
	if err := c.validateSource(kind); err != nil {
		return fmt.Errorf("%s: %w", c.ID, err)
	}
	if c.Samples <= 0 {
		return fmt.Errorf("%s: samples %d: a conversation has at least one sample (a zero-length conversation has nothing to detect or score)", c.ID, c.Samples)
	}
	if math.Abs(c.Duration-float64(c.Samples)/SampleRate) > 1e-6 {
		return fmt.Errorf("%s: duration_s %g does not match %d samples (%g s at %d Hz)", c.ID, c.Duration, c.Samples, float64(c.Samples)/SampleRate, SampleRate)
	}
	want := FilesOf(kind, *c)
	got := make([]string, 0, len(c.Files))
	for name, sum := range c.Files {
		got = append(got, name)
		if !digest.IsSHA256(sum) {
			return fmt.Errorf("%s: %s: sha256 %s is not 64 hex digits", c.ID, name, redact.Name(sum))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return fmt.Errorf("%s: files %v (want exactly %v)", c.ID, got, want)
	}
	return nil
}

// validateSource checks the fields that depend on where the corpus came
// from: generated conversations have an MPTB interaction type, voices, SNRs
// and noises and are labelled; ingested ones name their channels.
func (c *Conversation) validateSource(kind string) error {
	if kind == KindMPTB {
		if _, err := dialogue.ParseInteractionType(c.InteractionType); err != nil {
			return err
		}
		if len(c.Voices) != c.Speakers || len(c.SNR) != c.Speakers || len(c.Noise) != c.Speakers {
			return fmt.Errorf("voices, snr_db and noise need one entry per speaker (%d)", c.Speakers)
		}
		if c.Unlabelled || len(c.Channels) > 0 {
			return errors.New("a generated conversation is labelled and has no source channels")
		}
		return nil
	}
	if c.InteractionType == "" {
		return errors.New("interaction_type is empty")
	}
	if len(c.Channels) != c.Speakers {
		return fmt.Errorf("channels %q: want one name per speaker (%d)", c.Channels, c.Speakers)
	}
	if kind == KindAMI && c.Unlabelled {
		return errors.New("an AMI conversation cannot be unlabelled")
	}
	return nil
}

// decodeStrict decodes one JSON document into v, refusing unknown fields
// and anything after the document.
func decodeStrict(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return redact.JSON(err)
	}
	if d.More() {
		return errors.New("data after the JSON document")
	}
	return nil
}

// encode writes v as indented JSON with a final newline.
func encode(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Encode returns the manifest as corpus.json's bytes.
func (m *Manifest) Encode() ([]byte, error) { return encode(m) }
