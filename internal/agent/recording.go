package agent

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/floorbench/floorbench/internal/atomicfile"
	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/dialogue"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/names"
	"github.com/floorbench/floorbench/internal/redact"
)

// The provider event kinds a protocol adapter maps its provider's events
// to (docs/agents.md#recordings). An adapter may log other kinds too.
const (
	// EventSpeechStarted: the provider detected the user speaking
	// (realtime's input_audio_buffer.speech_started).
	EventSpeechStarted = "speech_started"
	// EventSpeechStopped: the provider detected the user stopping.
	EventSpeechStopped = "speech_stopped"
	// EventResponseStarted: the agent began a response.
	EventResponseStarted = "response_started"
	// EventResponseDone: the agent finished a response on its own.
	EventResponseDone = "response_done"
	// EventInterrupted: the agent's response was cut short (cancelled or
	// truncated by the provider, or the protocol's interruption event).
	EventInterrupted = "interrupted"
)

// ProviderEvent is one event the agent's side reported, on the trial
// clock: floorbench's kind beside what the provider sent.
type ProviderEvent struct {
	Kind string  `json:"kind"`
	Time float64 `json:"time_s"`
	// Name is the provider's own name for it, the type its message had
	// on the wire ("input_audio_buffer.speech_started", "response.done");
	// absent for what the client did itself (a barge-in). Recordings of
	// schema version 1 hold floorbench's event name there instead.
	Name string `json:"name,omitempty"`
	// Code and Message are a provider error's (kind error), scrubbed of
	// the endpoint's credential and cut to redact.MaxPeerRunes runes
	// (and the "..." of the cut).
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	// Text is a transcript's (kinds transcript and input_transcript),
	// scrubbed and cut as a message is.
	Text string `json:"text,omitempty"`
}

var eventKind = names.MustForm(`^[a-z0-9_.]+$`, 64)

func validEventKind(k string) bool { return eventKind.Match(k) }

// maxEventNameBytes bounds a provider's event name in a recording.
const maxEventNameBytes = 200

// Check checks an event's kind and the bounds of its provider's strings:
// what the client took from the agent is held to what its scrub keeps.
func (e ProviderEvent) Check() error {
	if !validEventKind(e.Kind) {
		return fmt.Errorf("kind %q (want lower-case letters, digits, _ and .)", e.Kind)
	}
	if len(e.Name) > maxEventNameBytes {
		return fmt.Errorf("name is %d bytes long (at most %d)", len(e.Name), maxEventNameBytes)
	}
	for _, f := range []struct{ field, value string }{{"code", e.Code}, {"message", e.Message}, {"text", e.Text}} {
		if !utf8.ValidString(f.value) || utf8.RuneCountInString(f.value) > redact.MaxPeerOutRunes {
			return fmt.Errorf("%s is not UTF-8 of at most %d characters", f.field, redact.MaxPeerOutRunes)
		}
	}
	return nil
}

// PlayedStimulus is what the harness did with a STOP scenario's stimulus.
type PlayedStimulus struct {
	Kind    StimulusKind `json:"kind"`
	Speaker int          `json:"speaker"`
	Delay   float64      `json:"delay_s"`
	Samples int          `json:"samples"`
	// Onset is when the harness heard the agent start (absent: never, and
	// the stimulus was not played); Start is when the stimulus started
	// (absent: not played).
	Onset *float64 `json:"agent_onset_s,omitempty"`
	Start *float64 `json:"start_s,omitempty"`
}

// Recording is what a harness leaves of one trial
// (docs/agents.md#recordings): enough to decide the trial again without
// the agent or the scenario folder. Times are seconds on the trial clock;
// 0 is the first sample played to the agent.
type Recording struct {
	SchemaVersion int       `json:"schema_version"`
	ScenarioID    string    `json:"scenario_id"`
	Condition     Condition `json:"condition"`
	Speakers      int       `json:"speakers"`
	Repeat        int       `json:"repeat"` // from 0
	Agent         string    `json:"agent"`
	Protocol      string    `json:"protocol"`
	Model         string    `json:"model,omitempty"`
	// Cue, Resume and ValidUntil are the scenario's (START); for STOP, Cue
	// is the end of the prompt and Stimulus says what was played when.
	Cue        float64         `json:"cue_s"`
	Resume     float64         `json:"resume_s,omitempty"`
	ValidUntil float64         `json:"valid_until_s"`
	Stimulus   *PlayedStimulus `json:"stimulus,omitempty"`
	// Acoustics the trial was played under (absent: clean).
	Acoustics *Acoustics      `json:"acoustics,omitempty"`
	Samples   int             `json:"samples"` // of input.wav and output.wav
	Duration  float64         `json:"duration_s"`
	Events    []ProviderEvent `json:"events"`
	// Error ends a trial that could not be played; its audio may be absent.
	Error string `json:"error,omitempty"`
	// Files maps input.wav and output.wav to their sha256.
	Files map[string]string `json:"files"`
}

// Recording folder files.
const (
	RecordingName = "recording.json"
	InputName     = "input.wav"
	OutputName    = "output.wav"
)

// RecordingSchemaVersion is the version of recording.json this code
// writes. 2: an event's name is the provider's wire type, and an error
// event keeps its code and message. 3: transcript events keep their
// text. Versions 1 and 2 are still read: their fields mean what they
// meant (version 1's events named floorbench's kinds).
const RecordingSchemaVersion = 3

// oldestRecordingSchema is the oldest version of recording.json this code
// reads.
const oldestRecordingSchema = 1

// MaxRecordingBytes bounds a recording's JSON file, recording.json and a
// seated session.json, as it is written and as it is read: events are a
// few a second, and limits.AgentEvents of them fit.
const MaxRecordingBytes = 8 << 20

// maxTrialSeconds bounds a trial's length.
const maxTrialSeconds = 3600.0

var agentName = names.Plain(64)

// TrialName is the folder name of one trial's recording:
// <agent>--<scenario>-r<repeat>.
func TrialName(agent, scenario string, repeat int) string {
	return fmt.Sprintf("%s--%s-r%d", agent, scenario, repeat)
}

// Validate checks every field the scorer relies on.
func (r *Recording) Validate() error {
	if r.SchemaVersion < oldestRecordingSchema || r.SchemaVersion > RecordingSchemaVersion {
		return fmt.Errorf("schema_version %d (this floorbench reads %d to %d)", r.SchemaVersion, oldestRecordingSchema, RecordingSchemaVersion)
	}
	if !dialogue.ValidID(r.ScenarioID) {
		return fmt.Errorf("scenario_id %q: want lower-case letters, digits, - and _", r.ScenarioID)
	}
	if _, err := ParseCondition(string(r.Condition)); err != nil {
		return err
	}
	switch {
	case r.Speakers < 2 || r.Speakers > 5:
		return fmt.Errorf("speakers %d (want 2 to 5)", r.Speakers)
	case r.Repeat < 0 || r.Repeat > 999:
		return fmt.Errorf("repeat %d (want 0 to 999)", r.Repeat)
	case !agentName.Match(r.Agent):
		return fmt.Errorf("agent %q: want letters, digits, _, . and -", r.Agent)
	case !agentName.Match(r.Protocol):
		return fmt.Errorf("protocol %q: want letters, digits, _, . and -", r.Protocol)
	case len(r.Model) > 200:
		return fmt.Errorf("model is %d bytes long (at most 200)", len(r.Model))
	case len(r.Error) > 4000:
		return fmt.Errorf("error is %d bytes long (at most 4000)", len(r.Error))
	}
	if a := r.Acoustics; a != nil {
		if a.Clean() {
			return errors.New("acoustics present but clean (leave it out)")
		}
		if err := a.Validate(); err != nil {
			return fmt.Errorf("acoustics.%w", err)
		}
	}
	if err := r.validateTimes(); err != nil {
		return err
	}
	if err := r.validateStimulus(); err != nil {
		return err
	}
	return r.validateFiles()
}

func (r *Recording) validateTimes() error {
	if r.Samples < 0 || r.Samples > int(maxTrialSeconds*SampleRate) || math.Abs(r.Duration-float64(r.Samples)/SampleRate) > 1e-6 {
		return fmt.Errorf("duration_s %g does not match %d samples (at most %g s)", r.Duration, r.Samples, maxTrialSeconds)
	}
	if r.Error == "" && r.Samples == 0 {
		return errors.New("samples 0 in a trial without an error")
	}
	if !(r.Cue > 0 && r.Cue <= maxTrialSeconds) {
		return fmt.Errorf("cue_s %g (want in (0, %g])", r.Cue, maxTrialSeconds)
	}
	if !(r.ValidUntil > r.Cue && r.ValidUntil <= maxTrialSeconds) {
		return fmt.Errorf("valid_until_s %g (want after cue_s %g)", r.ValidUntil, r.Cue)
	}
	hold := r.Condition.Hold()
	if hold && !(r.Resume > r.Cue && r.Resume < r.ValidUntil) {
		return fmt.Errorf("resume_s %g (want between cue_s %g and valid_until_s %g)", r.Resume, r.Cue, r.ValidUntil)
	}
	if !hold && r.Resume != 0 {
		return fmt.Errorf("resume_s %g on a %s trial (only holds resume)", r.Resume, r.Condition)
	}
	return CheckEvents(r.Events, "trial", r.Duration)
}

// CheckEvents checks the events of a recording, a trial's or a seat's
// (what names which): each event (ProviderEvent.Check), within the
// recording's duration, in time order.
func CheckEvents(events []ProviderEvent, what string, duration float64) error {
	for i, e := range events {
		if err := e.Check(); err != nil {
			return fmt.Errorf("events[%d]: %w", i, err)
		}
		if !(e.Time >= 0 && e.Time <= duration) {
			return fmt.Errorf("events[%d]: time_s %g outside the %s (0 to %g s)", i, e.Time, what, duration)
		}
		if i > 0 && e.Time < events[i-1].Time {
			return fmt.Errorf("events[%d]: time_s %g before the event before it (%g)", i, e.Time, events[i-1].Time)
		}
	}
	return nil
}

func (r *Recording) validateStimulus() error {
	want, st := StimulusOf(r.Condition), r.Stimulus
	switch {
	case want == "" && st != nil:
		return fmt.Errorf("a %s trial has a stimulus", r.Condition)
	case want == "":
		return nil
	case st == nil:
		return fmt.Errorf("a %s trial needs a stimulus", r.Condition)
	case st.Kind != want:
		return fmt.Errorf("stimulus kind %q (want %q for %s)", st.Kind, want, r.Condition)
	case !st.Kind.Seated() && st.Speaker != 0:
		return fmt.Errorf("stimulus speaker %d (want 0: a %s comes from the room)", st.Speaker, st.Kind)
	case st.Kind.Seated() && (st.Speaker < 1 || st.Speaker > r.Speakers):
		return fmt.Errorf("stimulus speaker %d (want 1 to %d)", st.Speaker, r.Speakers)
	case !(st.Delay > 0 && st.Delay <= maxStimulusDelay):
		return fmt.Errorf("stimulus delay_s %g (want in (0, %g])", st.Delay, maxStimulusDelay)
	case st.Samples <= 0 || st.Samples > int(maxStimulusDelay*SampleRate):
		return fmt.Errorf("stimulus samples %d (want 1 to %d)", st.Samples, int(maxStimulusDelay*SampleRate))
	case st.Start != nil && st.Onset == nil:
		return errors.New("stimulus start_s without agent_onset_s: it is played after the agent is heard")
	}
	if o := st.Onset; o != nil && !(*o >= 0 && *o <= r.Duration) {
		return fmt.Errorf("stimulus agent_onset_s %g outside the trial (0 to %g s)", *o, r.Duration)
	}
	if s := st.Start; s != nil && !(*s >= *st.Onset && *s < r.Duration) {
		return fmt.Errorf("stimulus start_s %g (want from agent_onset_s %g to before the trial's end %g s)", *s, *st.Onset, r.Duration)
	}
	return nil
}

func (r *Recording) validateFiles() error {
	var got []string
	for name, sum := range r.Files {
		got = append(got, name)
		if !digest.IsSHA256(sum) {
			return fmt.Errorf("files: %s: sha256 %q is not 64 hex digits", name, sum)
		}
	}
	slices.Sort(got)
	want := []string{InputName, OutputName}
	if !slices.Equal(got, want) && !(r.Error != "" && len(got) == 0) {
		return fmt.Errorf("files %v (want exactly %v, or none in a trial with an error)", got, want)
	}
	return nil
}

// CheckRecordingSize refuses to write a recording of n bytes that its
// reader would refuse: what is written can be read back.
func CheckRecordingSize(name string, n int) error {
	if n > MaxRecordingBytes {
		return fmt.Errorf("recording %s: %d bytes, more than a recording may hold (%d bytes)", name, n, MaxRecordingBytes)
	}
	return nil
}

// HasAudio reports whether the recording lists its audio files.
func (r *Recording) HasAudio() bool { return len(r.Files) > 0 }

// ParseRecording decodes recording.json strictly and validates it.
func ParseRecording(data []byte) (*Recording, error) {
	if len(data) > MaxRecordingBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxRecordingBytes)
	}
	var r Recording
	if err := decodeStrict(data, &r); err != nil {
		return nil, err
	}
	return &r, r.Validate()
}

// ReadRecording reads and validates dir/recording.json.
func ReadRecording(dir string) (*Recording, error) {
	path := filepath.Join(dir, RecordingName)
	data, err := readBounded(path, MaxRecordingBytes)
	if err != nil {
		return nil, err
	}
	r, err := ParseRecording(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// ReadOutput reads the agent's output audio of the recording in dir,
// checking its sha256 and length.
func (r *Recording) ReadOutput(dir string) ([]float32, error) { return r.readAudio(dir, OutputName) }

// ReadInput reads what the agent heard.
func (r *Recording) ReadInput(dir string) ([]float32, error) { return r.readAudio(dir, InputName) }

func (r *Recording) readAudio(dir, name string) ([]float32, error) {
	path := filepath.Join(dir, name)
	if !r.HasAudio() {
		return nil, fmt.Errorf("%s: the recording has no audio (trial error: %s)", path, r.Error)
	}
	sum, err := digest.FileSHA256(path)
	if err != nil {
		return nil, err
	}
	if sum != r.Files[name] {
		return nil, fmt.Errorf("%s: sha256 %s, recording.json says %s", path, sum, r.Files[name])
	}
	x, rate, err := audio.ReadWAV(path)
	if err != nil {
		return nil, err
	}
	if rate != SampleRate || len(x) != r.Samples {
		return nil, fmt.Errorf("%s: %d samples at %d Hz (want %d at %d Hz)", path, len(x), rate, r.Samples, SampleRate)
	}
	return x, nil
}

// WriteRecording writes a trial's recording into dir/name atomically (a
// temporary folder renamed into place, atomicfile.ReplaceDir): recording.json and, unless nil,
// input and output (16 kHz mono, r.Samples each). It fills r.Files.
func WriteRecording(dir, name string, r *Recording, input, output []float32) error {
	if !trialName.Match(name) {
		return fmt.Errorf("trial folder name %q: want letters, digits, _, . and -", name)
	}
	if (input == nil) != (output == nil) || (input != nil && (len(input) != r.Samples || len(output) != r.Samples)) {
		return fmt.Errorf("recording %s: input and output must both be %d samples, or both absent", name, r.Samples)
	}
	return atomicfile.ReplaceDir(filepath.Join(dir, name), partialPrefix, func(tmp string) error {
		r.Files = nil
		if input != nil {
			r.Files = map[string]string{}
			for _, f := range []struct {
				name string
				x    []float32
			}{{InputName, input}, {OutputName, output}} {
				path := filepath.Join(tmp, f.name)
				if err := audio.WriteWAV(path, f.x, SampleRate); err != nil {
					return fmt.Errorf("%s: %w", f.name, err)
				}
				var err error
				if r.Files[f.name], err = digest.FileSHA256(path); err != nil {
					return err
				}
			}
		}
		if err := r.Validate(); err != nil {
			return fmt.Errorf("recording %s: %w", name, err)
		}
		data, err := encodeJSON(r)
		if err != nil {
			return err
		}
		if err := CheckRecordingSize(name, len(data)); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, RecordingName), data, 0o644)
	})
}

var trialName = names.Plain(161)

// FailedRecording is the recording of a trial that could not be played:
// the scenario's times, no audio, and the error (CutError).
func FailedRecording(sc *Scenario, repeat int, agent, protocol, model, err string) *Recording {
	r := &Recording{SchemaVersion: RecordingSchemaVersion, ScenarioID: sc.ID, Condition: sc.Condition,
		Speakers: sc.Speakers, Repeat: repeat, Agent: agent, Protocol: protocol, Model: model,
		Cue: sc.Cue, Resume: sc.Resume, ValidUntil: sc.ValidUntil, Events: []ProviderEvent{}, Error: CutError(err)}
	if st := sc.Stimulus; st != nil {
		r.Stimulus = &PlayedStimulus{Kind: st.Kind, Speaker: st.Speaker, Delay: st.Delay, Samples: st.Samples}
	}
	return r
}

// CutError is the error a failed trial's or seat's recording holds: s
// cut to limits.MaxRecordedErrorBytes on a character boundary.
func CutError(s string) string {
	if len(s) <= limits.MaxRecordedErrorBytes {
		return s
	}
	return strings.ToValidUTF8(s[:limits.MaxRecordedErrorBytes], "")
}
