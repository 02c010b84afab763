package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/digest"
)

// SetName is the manifest of a scenario folder.
const SetName = "scenarios.json"

// SetSchemaVersion is the version of scenarios.json this code reads.
const SetSchemaVersion = 1

// maxSetBytes bounds the manifest a reader accepts: 120 scenarios take
// about 150 kB.
const maxSetBytes = 16 << 20

// maxScenarios bounds how many scenarios one set may list.
const maxScenarios = 10000

// Set is scenarios.json: the scenarios of one preset and seed.
type Set struct {
	SchemaVersion int    `json:"schema_version"`
	Preset        string `json:"preset"`
	Seed          uint64 `json:"seed"`
	// CodeVersion names the scenario writer and its version; the
	// generator's own version is GeneratorVersion (synth).
	CodeVersion      string     `json:"code_version"`
	GeneratorVersion int        `json:"generator_version"`
	SampleRate       int        `json:"sample_rate_hz"`
	Scenarios        []Scenario `json:"scenarios"`
}

// Validate checks the set and every scenario in it.
func (m *Set) Validate() error {
	if m.SchemaVersion != SetSchemaVersion {
		return fmt.Errorf("schema_version %d (this floorbench reads %d)", m.SchemaVersion, SetSchemaVersion)
	}
	if m.SampleRate != SampleRate {
		return fmt.Errorf("sample_rate_hz %d (want %d)", m.SampleRate, SampleRate)
	}
	if len(m.Scenarios) == 0 || len(m.Scenarios) > maxScenarios {
		return fmt.Errorf("%d scenarios (want 1 to %d)", len(m.Scenarios), maxScenarios)
	}
	seen := map[string]bool{}
	for i := range m.Scenarios {
		s := &m.Scenarios[i]
		if err := s.Validate(); err != nil {
			return fmt.Errorf("scenario %d: %w", i, err)
		}
		if seen[s.ID] {
			return fmt.Errorf("scenario %d: id %q listed twice", i, s.ID)
		}
		seen[s.ID] = true
	}
	return nil
}

// Scenario returns the scenario with the given id.
func (m *Set) Scenario(id string) (*Scenario, bool) {
	for i := range m.Scenarios {
		if m.Scenarios[i].ID == id {
			return &m.Scenarios[i], true
		}
	}
	return nil, false
}

// ParseSet decodes scenarios.json strictly (no unknown fields, no trailing
// data) and validates it.
func ParseSet(data []byte) (*Set, error) {
	if len(data) > maxSetBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxSetBytes)
	}
	var m Set
	if err := decodeStrict(data, &m); err != nil {
		return nil, err
	}
	return &m, m.Validate()
}

// ReadSet reads and validates dir/scenarios.json.
func ReadSet(dir string) (*Set, error) {
	path := filepath.Join(dir, SetName)
	data, err := readBounded(path, maxSetBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: no %s: not a scenario folder (or its generation did not finish)", dir, SetName)
	}
	if err != nil {
		return nil, err
	}
	m, err := ParseSet(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ScenarioAudio is a scenario's audio: the mix the agent hears, the
// participants' channels (parallel to Scenario.Participants) and, for
// STOP scenarios, the stimulus clip. 16 kHz, in [-1, 1].
type ScenarioAudio struct {
	Mix        []float32
	Channels   [][]float32
	Stimulus   []float32
	Background []float32
}

// LoadAudio reads scenario s's files from the set folder dir, checking
// every file's sha256 and length against the manifest.
func LoadAudio(dir string, s *Scenario) (ScenarioAudio, error) {
	folder := filepath.Join(dir, s.ID)
	read := func(name string, samples int) ([]float32, error) {
		path := filepath.Join(folder, name)
		sum, err := digest.FileSHA256(path)
		if err != nil {
			return nil, err
		}
		if sum != s.Files[name] {
			return nil, fmt.Errorf("%s: sha256 %s, the manifest says %s", path, sum, s.Files[name])
		}
		x, rate, err := audio.ReadWAV(path)
		if err != nil {
			return nil, err
		}
		if rate != SampleRate || len(x) != samples {
			return nil, fmt.Errorf("%s: %d samples at %d Hz (want %d at %d Hz)", path, len(x), rate, samples, SampleRate)
		}
		return x, nil
	}
	var a ScenarioAudio
	var err error
	if a.Mix, err = read(MixName, s.Samples); err != nil {
		return a, err
	}
	for _, p := range s.Participants {
		ch, err := read(ChannelName(p.Speaker), s.Samples)
		if err != nil {
			return a, err
		}
		a.Channels = append(a.Channels, ch)
	}
	if s.Stimulus != nil {
		if a.Stimulus, err = read(StimulusName, s.Stimulus.Samples); err != nil {
			return a, err
		}
	}
	if s.Background != nil {
		a.Background, err = read(BackgroundName, s.Background.Samples)
	}
	return a, err
}

// readBounded reads a regular file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return data, nil
}

// decodeStrict decodes one JSON document into v, refusing unknown fields
// and anything after the document.
func decodeStrict(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if err := d.Decode(new(json.RawMessage)); !errors.Is(err, io.EOF) {
		return errors.New("data after the JSON document")
	}
	return nil
}

// encodeJSON writes v as indented JSON with a final newline.
func encodeJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
