// Package limits holds the upper bounds floorbench puts on what it is given
// (file sizes, bootstrap resamples, candidate thresholds, fan-out,
// conversation counts and lengths), so that a typo or a hostile input is
// one clear error naming the field and the limit, not a process that grows
// until it is killed. Every bound lives here; the defaults of Limits are
// generous and an operator raises them in the config file's limits
// section or with FLOORBENCH_LIMIT_* environment variables. The bounds of
// an agent's sessions (sessions.go) are fixed constants with their
// defaults: they are part of what a spec means.
//
// There is no process-wide setting: whoever reads the configuration (the
// command line, a worker) holds a Limits and passes it, or the one bound
// that matters, to every function that checks what it is given.
package limits

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Limits are the bounds a process puts on what it accepts. A field's yaml key is its name in the
// config file's limits section; FLOORBENCH_LIMIT_ and the key in capitals
// is its environment variable.
type Limits struct {
	// InputBytes bounds one JSON input: gold set, probability file,
	// submission, attributes. A probability file of the full MPTB preset
	// (6.85 h, 840 channels at 50 frames/s) is about 90 MB; 1 GiB holds a
	// corpus eleven times that. Parsing takes about ten times a file's
	// size in memory.
	InputBytes int64 `yaml:"input_bytes"`
	// SpecBytes bounds one YAML file: sweep spec, system spec, config file.
	// They are a few KB; a system spec travels in workflow inputs, whose
	// payloads Temporal caps at 2 MB.
	SpecBytes int64 `yaml:"spec_bytes"`
	// ModelBytes bounds one model file a system spec names. Silero VAD is
	// 2 MB; 8 GiB holds the largest speech models a CPU or a single GPU
	// runs.
	ModelBytes int64 `yaml:"model_bytes"`
	// SourceBytes bounds one file of an outside dataset an ingest reads:
	// a TurnBench parquet shard, an AMI annotation or headset recording
	// (an hour at 16 kHz is 115 MB). They are read as streams.
	SourceBytes int64 `yaml:"source_bytes"`
	// Resamples bounds the conversation bootstrap: ten times the protocol's
	// 10,000. The resamples of 1,000 conversations take 2 bytes each, 200
	// MB at this bound.
	Resamples int `yaml:"resamples"`
	// Quantiles bounds n_quantiles, the candidate thresholds of an
	// operating-point search: twenty times the protocol's 512. Every
	// candidate is one pass of the commit rule over every track.
	Quantiles int `yaml:"n_quantiles"`
	// Concurrency bounds the activities one fan-out keeps in flight: the
	// Temporal server refuses more than 2,000 pending activities in one
	// workflow by default.
	Concurrency int `yaml:"concurrency"`
	// Conversations bounds the conversations of one corpus or gold set:
	// a corpus plan lists its conversation ids in workflow payloads, which
	// Temporal caps at 2 MB (20,000 ids of 40 bytes is 800 KB). The MPTB
	// preset has 240, AMI 171 meetings.
	Conversations int `yaml:"conversations"`
	// DurationS bounds one conversation's length in seconds: 4 hours,
	// several AMI meetings end to end; one 16 kHz channel of 4 h is 920 MB
	// of samples in memory.
	DurationS float64 `yaml:"conversation_duration_s"`
	// BackfillRuns bounds the runs one `schedule backfill` starts: each is
	// a sweep and a webhook post. 500 is more than a year of nightly runs.
	BackfillRuns int `yaml:"backfill_runs"`

	// The bounds below are on what a peer (an agent, a chat or speech
	// endpoint) can make floorbench hold or wait for
	// (docs/operations.md#what-a-peer-can-make-floorbench-hold).

	// AgentQueueS bounds, in seconds, the audio a realtime agent has sent
	// ahead of what has been heard of it: real servers send a response
	// faster than real time, a few seconds ahead. 300 s is 19 MB held.
	AgentQueueS float64 `yaml:"agent_queue_s"`
	// AgentItems bounds a realtime agent's output items in flight: begun
	// and not done, or cut by a barge-in. A response has one or two.
	AgentItems int `yaml:"agent_items"`
	// AgentFramesAhead bounds how many frames a duplex agent's channel
	// may run ahead of the input it answers (it answers input frame n
	// with its frame n): 250 frames are 5 s.
	AgentFramesAhead int `yaml:"agent_frames_ahead"`
	// AgentEvents bounds the events one session (a trial or a seat) may
	// report: a 4 h seated session at two events a second is 28,800.
	// Each is about 100 bytes of the recording.
	AgentEvents int `yaml:"agent_events"`
	// AgentEventsPerS bounds the events one second of session time may
	// report: speech and response events come a few a second.
	AgentEventsPerS int `yaml:"agent_events_per_s"`
	// SpeechSPerChar bounds a speech endpoint's answer: at most this many
	// seconds of audio per character of its text (people say about 15 a
	// second), read from the WAV header before anything is decoded.
	SpeechSPerChar float64 `yaml:"speech_s_per_char"`
	// RetryAfterS bounds the wait a chat or speech endpoint's Retry-After
	// can ask for before a retry.
	RetryAfterS float64 `yaml:"retry_after_s"`
}

// OpenModel opens a model file by Open's rule, of at most ModelBytes.
func (l Limits) OpenModel(path string) (*os.File, error) {
	return Open(path, l.ModelBytes, "model_bytes")
}

// OpenSource opens a file of an outside dataset by Open's rule, of at
// most SourceBytes.
func (l Limits) OpenSource(path string) (*os.File, error) {
	return Open(path, l.SourceBytes, "source_bytes")
}

// OpenInputFile opens a JSON input by Open's rule, of at most InputBytes,
// for reading as bytes (hashing, uploading) rather than as text.
func (l Limits) OpenInputFile(path string) (*os.File, error) {
	return Open(path, l.InputBytes, "input_bytes")
}

// Default is the limits of a fresh installation.
func Default() Limits {
	return Limits{
		InputBytes:    1 << 30,
		SpecBytes:     1 << 20,
		ModelBytes:    8 << 30,
		SourceBytes:   16 << 30,
		Resamples:     100_000,
		Quantiles:     10_000,
		Concurrency:   1024,
		Conversations: 20_000,
		DurationS:     4 * 3600,
		BackfillRuns:  500,

		AgentQueueS:      300,
		AgentItems:       4096,
		AgentFramesAhead: 250,
		AgentEvents:      50_000,
		AgentEventsPerS:  100,
		SpeechSPerChar:   1,
		RetryAfterS:      60,
	}
}

// OrDefault is l, or Default when l is the zero Limits: a struct that
// carries limits and leaves them unset bounds what it reads by the
// defaults.
func (l Limits) OrDefault() Limits {
	if l == (Limits{}) {
		return Default()
	}
	return l
}

// EnvPrefix starts the environment variable of each limit.
const EnvPrefix = "FLOORBENCH_LIMIT_"

// FromEnv returns l with every limit whose FLOORBENCH_LIMIT_<KEY> variable
// is set replaced by its value.
func (l Limits) FromEnv(lookup func(string) (string, bool)) (Limits, error) {
	for _, f := range l.fields() {
		name := EnvPrefix + strings.ToUpper(f.key)
		v, ok := lookup(name)
		if !ok {
			continue
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(n > 0) || n > 1<<62 || (!f.real && n != float64(int64(n))) {
			return l, fmt.Errorf("%s=%q: want a positive %s", name, v, f.kind())
		}
		f.set(n)
	}
	return l, l.Validate()
}

// Validate checks that every limit is positive, so a limits section that
// leaves one at 0 does not refuse everything.
func (l Limits) Validate() error {
	for _, f := range l.fields() {
		if !(f.get() > 0) {
			return fmt.Errorf("limits.%s: must be > 0", f.key)
		}
	}
	return nil
}

type field struct {
	key  string
	real bool
	get  func() float64
	set  func(float64)
}

func (f field) kind() string {
	if f.real {
		return "number"
	}
	return "integer"
}

func (l *Limits) fields() []field {
	i64 := func(key string, p *int64) field {
		return field{key, false, func() float64 { return float64(*p) }, func(v float64) { *p = int64(v) }}
	}
	i := func(key string, p *int) field {
		return field{key, false, func() float64 { return float64(*p) }, func(v float64) { *p = int(v) }}
	}
	real := func(key string, p *float64) field {
		return field{key, true, func() float64 { return *p }, func(v float64) { *p = v }}
	}
	return []field{
		i64("input_bytes", &l.InputBytes),
		i64("spec_bytes", &l.SpecBytes),
		i64("model_bytes", &l.ModelBytes),
		i64("source_bytes", &l.SourceBytes),
		i("resamples", &l.Resamples),
		i("n_quantiles", &l.Quantiles),
		i("concurrency", &l.Concurrency),
		i("conversations", &l.Conversations),
		real("conversation_duration_s", &l.DurationS),
		i("backfill_runs", &l.BackfillRuns),
		real("agent_queue_s", &l.AgentQueueS),
		i("agent_items", &l.AgentItems),
		i("agent_frames_ahead", &l.AgentFramesAhead),
		i("agent_events", &l.AgentEvents),
		i("agent_events_per_s", &l.AgentEventsPerS),
		real("speech_s_per_char", &l.SpeechSPerChar),
		real("retry_after_s", &l.RetryAfterS),
	}
}

// OverError is a value above its limit.
type OverError struct {
	Field string // where the value is, e.g. "bootstrap.resamples"
	Value string
	Key   string // the limit's key in the limits section
	Limit string
}

func (e *OverError) Error() string {
	return fmt.Sprintf("%s: %s is over the limit of %s (raise limits.%s in the config file or %s%s)",
		e.Field, e.Value, e.Limit, e.Key, EnvPrefix, strings.ToUpper(e.Key))
}

func over(field, key string, v, max any) error {
	return &OverError{Field: field, Value: fmt.Sprint(v), Key: key, Limit: fmt.Sprint(max)}
}

// CheckResamples checks a bootstrap size; field names it in the message.
func (l Limits) CheckResamples(field string, n int) error {
	if n > l.Resamples {
		return over(field, "resamples", n, l.Resamples)
	}
	return nil
}

// CheckQuantiles checks a number of candidate quantiles.
func (l Limits) CheckQuantiles(field string, n int) error {
	if n > l.Quantiles {
		return over(field, "n_quantiles", n, l.Quantiles)
	}
	return nil
}

// CheckConcurrency checks a fan-out width.
func (l Limits) CheckConcurrency(field string, n int) error {
	if n > l.Concurrency {
		return over(field, "concurrency", n, l.Concurrency)
	}
	return nil
}

// CheckSpecBytes checks the size of a YAML document read before (a system
// spec carried in a sweep).
func (l Limits) CheckSpecBytes(field string, n int) error {
	if int64(n) > l.SpecBytes {
		return &OverError{Field: field, Value: fmt.Sprintf("%d bytes", n), Key: "spec_bytes", Limit: fmt.Sprintf("%d bytes", l.SpecBytes)}
	}
	return nil
}

// CheckConversations checks the number of conversations of a corpus or a
// gold set.
func (l Limits) CheckConversations(field string, n int) error {
	if n > l.Conversations {
		return over(field, "conversations", n, l.Conversations)
	}
	return nil
}

// CheckBackfillRuns checks the number of runs a backfill would start;
// about says the number is an estimate (a lower bound was passed).
func (l Limits) CheckBackfillRuns(field string, n int, about bool) error {
	if n <= l.BackfillRuns {
		return nil
	}
	v := fmt.Sprintf("%d runs", n)
	if about {
		v = "about " + v
	}
	return &OverError{Field: field, Value: v, Key: "backfill_runs", Limit: fmt.Sprintf("%d runs", l.BackfillRuns)}
}

// CheckDuration checks one conversation's length in seconds.
func (l Limits) CheckDuration(field string, seconds float64) error {
	if seconds > l.DurationS {
		return over(field, "conversation_duration_s", seconds, l.DurationS)
	}
	return nil
}
