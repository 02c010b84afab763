package seated

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/atomicfile"
	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/dialogue"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/names"
)

// Recording is what a seated session leaves (docs/agents.md#seated-agents):
// what a listener heard from the agent on the session's clock
// (output.wav, 16 kHz mono, sample 0 at the conversation's start) and the
// provider's events, enough to derive the seat's predictions again
// without the agent.
type Recording struct {
	SchemaVersion int    `json:"schema_version"`
	Conversation  string `json:"conversation_id"`
	Seat          int    `json:"seat"` // the speaker the agent stood in for, from 1
	Speakers      int    `json:"speakers"`
	// CorpusSHA256 is the sha256 of the corpus's corpus.json, which names
	// every byte of its audio.
	CorpusSHA256 string  `json:"corpus_sha256"`
	Agent        string  `json:"agent"`
	Protocol     string  `json:"protocol"`
	Model        string  `json:"model,omitempty"`
	Rate         float64 `json:"rate"`
	// Samples and Duration are output.wav's: the input sent, conversation
	// and tail.
	Samples  int                   `json:"samples"`
	Duration float64               `json:"duration_s"`
	Events   []agent.ProviderEvent `json:"events"`
	// Error ends a session that failed after every retry; it has no audio.
	Error string `json:"error,omitempty"`
	// Files maps output.wav to its sha256.
	Files map[string]string `json:"files"`
}

// Files of a session folder and the folder of all sessions.
const (
	RecordingName = "session.json"
	OutputName    = "output.wav"
	SessionsDir   = "sessions"
)

// RecordingSchemaVersion is the version of session.json this code
// writes. 2: an event's name is the provider's wire type, and an error
// event keeps its code and message (agent.ProviderEvent). 3: transcript
// events keep their text. Versions 1 (whose events named floorbench's
// kinds) and 2 are still read.
const RecordingSchemaVersion = 3

// oldestRecordingSchema is the oldest version of session.json this code
// reads.
const oldestRecordingSchema = 1

// maxSessionSeconds bounds a session (AMI meetings run an hour); a
// session.json is bounded by agent.MaxRecordingBytes.
const maxSessionSeconds = 4 * 3600.0

var nameRule = names.Plain(64)

// Validate checks every field a derivation relies on.
func (r *Recording) Validate() error {
	switch {
	case r.SchemaVersion < oldestRecordingSchema || r.SchemaVersion > RecordingSchemaVersion:
		return fmt.Errorf("schema_version %d (this floorbench reads %d to %d)", r.SchemaVersion, oldestRecordingSchema, RecordingSchemaVersion)
	case !dialogue.ValidID(r.Conversation):
		return fmt.Errorf("conversation_id %q: want lower-case letters, digits, - and _", r.Conversation)
	case r.Speakers < 2 || r.Speakers > 16:
		return fmt.Errorf("speakers %d (want 2 to 16)", r.Speakers)
	case r.Seat < 1 || r.Seat > r.Speakers:
		return fmt.Errorf("seat %d (want 1 to speakers %d)", r.Seat, r.Speakers)
	case !digest.IsSHA256(r.CorpusSHA256):
		return fmt.Errorf("corpus_sha256 %q: want 64 lower-case hex digits", r.CorpusSHA256)
	case !nameRule.Match(r.Agent):
		return fmt.Errorf("agent %q: want letters, digits, _, . and -", r.Agent)
	case proto.CheckProtocol(r.Protocol) != nil:
		return proto.CheckProtocol(r.Protocol)
	case len(r.Model) > 200:
		return fmt.Errorf("model is %d bytes long (at most 200)", len(r.Model))
	case proto.CheckRate(r.Rate) != nil:
		return proto.CheckRate(r.Rate)
	case len(r.Error) > 4000:
		return fmt.Errorf("error is %d bytes long (at most 4000)", len(r.Error))
	case r.Samples < 0 || r.Samples > int(maxSessionSeconds*proto.SampleRate) || r.Samples%proto.FrameSamples != 0:
		return fmt.Errorf("samples %d (want whole 20 ms frames, at most %g s)", r.Samples, maxSessionSeconds)
	case math.Abs(r.Duration-float64(r.Samples)/proto.SampleRate) > 1e-6:
		return fmt.Errorf("duration_s %g does not match %d samples", r.Duration, r.Samples)
	case r.Error == "" && r.Samples == 0:
		return errors.New("samples 0 in a session without an error")
	}
	if err := agent.CheckEvents(r.Events, "session", r.Duration); err != nil {
		return err
	}
	return r.validateFiles()
}

func (r *Recording) validateFiles() error {
	if r.Error != "" && len(r.Files) == 0 {
		return nil
	}
	if len(r.Files) != 1 || !digest.IsSHA256(r.Files[OutputName]) {
		return fmt.Errorf("files: want exactly %s with its sha256 (64 lower-case hex digits), or none in a session with an error", OutputName)
	}
	return nil
}

// ParseRecording decodes session.json strictly and validates it.
func ParseRecording(data []byte) (*Recording, error) {
	if len(data) > agent.MaxRecordingBytes {
		return nil, fmt.Errorf("larger than %d bytes", agent.MaxRecordingBytes)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var r Recording
	if err := d.Decode(&r); err != nil {
		return nil, err
	}
	if err := d.Decode(new(json.RawMessage)); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the JSON document")
	}
	return &r, r.Validate()
}

// ReadRecording reads and validates dir/session.json.
func ReadRecording(dir string) (*Recording, error) {
	path := filepath.Join(dir, RecordingName)
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > agent.MaxRecordingBytes {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, agent.MaxRecordingBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := ParseRecording(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// ReadOutput reads what was heard from the agent in the session recorded
// in dir, checking its sha256 and length.
func (r *Recording) ReadOutput(dir string) ([]float32, error) {
	path := filepath.Join(dir, OutputName)
	if r.Error != "" {
		return nil, fmt.Errorf("%s: the session failed and has no audio (%s)", dir, r.Error)
	}
	sum, err := digest.FileSHA256(path)
	if err != nil {
		return nil, err
	}
	if sum != r.Files[OutputName] {
		return nil, fmt.Errorf("%s: sha256 %s, %s says %s", path, sum, RecordingName, r.Files[OutputName])
	}
	x, rate, err := audio.ReadWAV(path)
	if err != nil {
		return nil, err
	}
	if rate != proto.SampleRate || len(x) != r.Samples {
		return nil, fmt.Errorf("%s: %d samples at %d Hz (want %d at %d Hz)", path, len(x), rate, r.Samples, proto.SampleRate)
	}
	return x, nil
}

// WriteRecording writes a session's recording into dir/name atomically
// (atomicfile.ReplaceDir: a temporary folder renamed into place):
// session.json and, unless nil, output.wav (r.Samples samples). It fills
// r.Files.
func WriteRecording(dir, name string, r *Recording, output []float32) error {
	if output != nil && len(output) != r.Samples {
		return fmt.Errorf("session %s: %d output samples, the recording says %d", name, len(output), r.Samples)
	}
	return atomicfile.ReplaceDir(filepath.Join(dir, name), ".partial-", func(tmp string) error {
		r.Files = map[string]string{}
		if output != nil {
			path := filepath.Join(tmp, OutputName)
			if err := audio.WriteWAV(path, output, proto.SampleRate); err != nil {
				return fmt.Errorf("session %s: %w", name, err)
			}
			var err error
			if r.Files[OutputName], err = digest.FileSHA256(path); err != nil {
				return err
			}
		}
		if err := r.Validate(); err != nil {
			return fmt.Errorf("session %s: %w", name, err)
		}
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		if err := agent.CheckRecordingSize(name, len(data)+1); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, RecordingName), append(data, '\n'), 0o644)
	})
}
