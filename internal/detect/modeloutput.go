package detect

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/floorbench/floorbench/internal/limits"
)

// ModelOutput is a model stage's output on one conversation (package
// documentation, "Stages"): what the floor stage reads, and what the store
// keeps once per model and conversation (docs/formats.md#model-outputs).
type ModelOutput struct {
	// Duration is the conversation's, in seconds: its timeline holds
	// floor(Duration·16000) samples and its grid floor(Duration·fps)
	// frames.
	Duration float64
	// Hop is how many samples each value moves on: value j of a track is
	// known once sample (j+1)·Hop has been heard.
	Hop int
	// Roles says what each output is (RoleActivity, RoleEOT, RoleINT).
	Roles []string
	// Values[t][k] is output t's track for speaker k: floor(samples/Hop)
	// values in [0, 1]. Where the model's last step ends before the
	// conversation does (a step that gives several values, a resampler
	// holding samples back), the values after it repeat its last (pad).
	Values [][][]float32
}

// newModelOutput makes the empty output of a model with outputs out on a
// conversation of the given speakers and duration, each track's capacity
// its full length.
func newModelOutput(out modelOutputs, speakers int, duration float64) *ModelOutput {
	o := &ModelOutput{Duration: duration, Hop: out.hop, Roles: out.roles, Values: make([][][]float32, len(out.roles))}
	for t := range o.Values {
		o.Values[t] = make([][]float32, speakers)
		for k := range o.Values[t] {
			o.Values[t][k] = make([]float32, 0, o.length())
		}
	}
	return o
}

// Speakers is the number of speakers the output covers.
func (o *ModelOutput) Speakers() int {
	if len(o.Values) == 0 {
		return 0
	}
	return len(o.Values[0])
}

// length is how many values each track holds.
func (o *ModelOutput) length() int { return samplesIn(o.Duration) / o.Hop }

// pad completes every track to its length with its last value, 0 for a
// track without one: the latest the model gave, as the grid reads it.
func (o *ModelOutput) pad() {
	for t := range o.Values {
		for k, track := range o.Values[t] {
			var last float32
			if len(track) > 0 {
				last = track[len(track)-1]
			}
			for len(track) < o.length() {
				track = append(track, last)
			}
			o.Values[t][k] = track
		}
	}
}

// modelOutputSchema names the format in its header line.
const modelOutputSchema = "floorbench-model-output"

// modelOutputHeader is a model output file's first line.
type modelOutputHeader struct {
	Schema   string   `json:"schema"`
	Version  int      `json:"version"`
	Duration float64  `json:"duration_s"`
	Hop      int      `json:"hop"`
	Roles    []string `json:"roles"`
	Speakers int      `json:"speakers"`
	Values   int      `json:"values"`
}

// Bounds of what a model output file may declare: a header line, hops
// (a second at most), speakers (as corpora allow) and values.
const (
	maxModelHeader   = 4 << 10
	maxModelHop      = SampleRate
	maxModelSpeakers = 16
)

// WriteModelOutput writes o: a JSON header line, then every value as a
// little-endian float32, output by output, speaker by speaker.
func WriteModelOutput(w io.Writer, o *ModelOutput) error {
	if err := o.check(); err != nil {
		return err
	}
	h := modelOutputHeader{Schema: modelOutputSchema, Version: 1, Duration: o.Duration, Hop: o.Hop,
		Roles: o.Roles, Speakers: o.Speakers(), Values: o.length()}
	line, err := json.Marshal(h)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.Write(append(line, '\n'))
	var buf [4]byte
	for _, out := range o.Values {
		for _, track := range out {
			for _, v := range track {
				binary.LittleEndian.PutUint32(buf[:], math.Float32bits(v))
				bw.Write(buf[:])
			}
		}
	}
	return bw.Flush()
}

// ReadModelOutput reads what WriteModelOutput wrote. Anything else (an
// unknown schema or field, a header that disagrees with itself, a value
// outside [0, 1], bytes missing or left over, a duration over lim's
// conversation_duration_s) is an error naming what is wrong.
func ReadModelOutput(r io.Reader, lim limits.Limits) (*ModelOutput, error) {
	br := bufio.NewReaderSize(r, maxModelHeader)
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) || len(line) > maxModelHeader {
		return nil, fmt.Errorf("model output: header line longer than %d bytes", maxModelHeader)
	}
	if err != nil {
		return nil, fmt.Errorf("model output: header: %w", err)
	}
	var h modelOutputHeader
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("model output: header: %w", err)
	}
	o, err := h.output(lim)
	if err != nil {
		return nil, fmt.Errorf("model output: header: %w", err)
	}
	for t := range o.Values {
		for k := range o.Values[t] {
			if o.Values[t][k], err = readTrack(br, h.Values); err != nil {
				return nil, fmt.Errorf("model output: output %s speaker %d: %w", o.Roles[t], k+1, err)
			}
		}
	}
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		return nil, errors.New("model output: bytes after the last value")
	}
	if err := o.check(); err != nil {
		return nil, fmt.Errorf("model output: %w", err)
	}
	return o, nil
}

// readTrack reads n little-endian float32 values a block at a time, so
// that memory follows the bytes there are, not the count a header claims.
func readTrack(r io.Reader, n int) ([]float32, error) {
	const block = 1 << 14
	track := make([]float32, 0, min(n, block))
	buf := make([]byte, 4*block)
	for len(track) < n {
		b := buf[:4*min(block, n-len(track))]
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		for j := 0; j < len(b); j += 4 {
			track = append(track, math.Float32frombits(binary.LittleEndian.Uint32(b[j:])))
		}
	}
	return track, nil
}

// output checks the header and makes the output it describes, without
// its values.
func (h modelOutputHeader) output(lim limits.Limits) (*ModelOutput, error) {
	switch {
	case h.Schema != modelOutputSchema || h.Version != 1:
		return nil, fmt.Errorf("schema %q version %d: want %s version 1", h.Schema, h.Version, modelOutputSchema)
	case !(h.Duration >= 0):
		return nil, fmt.Errorf("duration_s %v: want a duration >= 0", h.Duration)
	case lim.CheckDuration("duration_s", h.Duration) != nil:
		return nil, lim.CheckDuration("duration_s", h.Duration)
	case h.Hop < 1 || h.Hop > maxModelHop:
		return nil, fmt.Errorf("hop %d: want 1 to %d samples", h.Hop, maxModelHop)
	case h.Speakers < 1 || h.Speakers > maxModelSpeakers:
		return nil, fmt.Errorf("speakers %d: want 1 to %d", h.Speakers, maxModelSpeakers)
	case len(h.Roles) < 1 || len(h.Roles) > 3:
		return nil, fmt.Errorf("roles %q: want 1 to 3", h.Roles)
	}
	o := &ModelOutput{Duration: h.Duration, Hop: h.Hop, Roles: h.Roles, Values: make([][][]float32, len(h.Roles))}
	if h.Values != o.length() {
		return nil, fmt.Errorf("values %d: %g s at hop %d holds %d", h.Values, h.Duration, h.Hop, o.length())
	}
	for t := range o.Values {
		o.Values[t] = make([][]float32, h.Speakers)
	}
	return o, nil
}

// check says whether the output is whole: known roles, each once, and on
// every track the values its duration and hop make, each in [0, 1].
func (o *ModelOutput) check() error {
	if o.Hop < 1 || len(o.Roles) == 0 || len(o.Values) != len(o.Roles) || o.Speakers() == 0 {
		return fmt.Errorf("hop %d, %d roles, %d outputs: want a hop, and one output per role", o.Hop, len(o.Roles), len(o.Values))
	}
	for t, role := range o.Roles {
		if !slices.Contains([]string{RoleActivity, RoleEOT, RoleINT}, role) || slices.Index(o.Roles, role) != t {
			return fmt.Errorf("roles %q: want each of %s, %s, %s at most once", o.Roles, RoleActivity, RoleEOT, RoleINT)
		}
		if len(o.Values[t]) != o.Speakers() {
			return fmt.Errorf("output %s has %d speakers, output %s %d", role, len(o.Values[t]), o.Roles[0], o.Speakers())
		}
		for k, track := range o.Values[t] {
			if len(track) != o.length() {
				return fmt.Errorf("output %s speaker %d: %d values, want %d", role, k+1, len(track), o.length())
			}
			for j, v := range track {
				if !(v >= 0 && v <= 1) {
					return fmt.Errorf("output %s speaker %d value %d is %v, outside [0, 1]", role, k+1, j, v)
				}
			}
		}
	}
	return nil
}
