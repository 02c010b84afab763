package seated

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/harness"
	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/limits"
)

// Options say how a corpus is seated with one agent: its sessions
// (harness.Sessions, as a set's trials are played) and what each sends.
type Options struct {
	// Agent names the agent in recordings; Model describes it.
	Agent, Model string
	harness.Sessions
	// Tail is the silence sent after each conversation, in seconds.
	Tail float64
}

// DefaultOptions are the options with their defaults (limits'
// DefaultAgentSessions, DefaultSessionRetries, DefaultSessionBackoff and
// DefaultSeatTailS).
func DefaultOptions(agentName string, ep proto.Endpoint) Options {
	return Options{Agent: agentName, Sessions: harness.Sessions{Endpoint: ep, Concurrency: limits.DefaultAgentSessions,
		Retries: limits.DefaultSessionRetries, Backoff: limits.DefaultSessionBackoff}, Tail: limits.DefaultSeatTailS}
}

// Check refuses options Run cannot work with, naming the setting: the
// sessions' by harness.Sessions.Check, the seats' here.
func (o Options) Check() error {
	switch {
	case !nameRule.Match(o.Agent):
		return fmt.Errorf("agent name %q: want letters, digits, _, . and - (at most 64)", o.Agent)
	case len(o.Model) > limits.MaxAgentSetting:
		return fmt.Errorf("model is %d bytes long (at most %d)", len(o.Model), limits.MaxAgentSetting)
	case !(o.Tail >= 0 && o.Tail <= limits.MaxSeatTailS):
		return fmt.Errorf("tail %g s (want 0 to %g)", o.Tail, limits.MaxSeatTailS)
	}
	return o.Sessions.Check()
}

// Failure is a seat whose session failed after every retry.
type Failure struct {
	Conversation string `json:"conversation_id"`
	Seat         int    `json:"seat"`
	Error        string `json:"error"`
}

// Summary is what a run did.
type Summary struct {
	Played  int       `json:"played"`
	Resumed int       `json:"resumed"`
	Failed  []Failure `json:"failed"`
}

// Run plays every seat's session to the agent at o.Endpoint and writes
// each recording into out/sessions/<seat>. A seat already recorded there
// (same corpus, agent, protocol, model, rate and length, no error) is kept and
// not played; a session that fails is retried, and one that still fails is
// recorded with its error and listed in the summary, and the run goes on.
// Unless every seat is recorded already, one session is opened and closed
// first, so that an endpoint that refuses is one error before anything
// starts. Only that, a cancelled ctx, out holding another agent's
// sessions, or a recording that cannot be written ends Run early.
func Run(ctx context.Context, c *corpus.Corpus, seats []Seat, o Options, out string) (Summary, error) {
	if err := o.Check(); err != nil {
		return Summary{}, err
	}
	corpusSHA, err := digest.FileSHA256(filepath.Join(c.Dir, corpus.ManifestName))
	if err != nil {
		return Summary{}, err
	}
	dir := filepath.Join(out, SessionsDir)
	pending, err := pendingSeats(dir, seats, o, corpusSHA)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{Resumed: len(seats) - len(pending), Failed: []Failure{}}
	if len(pending) == 0 {
		return sum, nil
	}
	if err := harness.Preflight(ctx, o.Endpoint); err != nil {
		return Summary{}, fmt.Errorf("agent %s: %w", o.Agent, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Summary{}, err
	}
	return playAll(ctx, c, pending, o, corpusSHA, dir, sum)
}

// playAll plays the pending seats, at most o.Concurrency at once.
func playAll(ctx context.Context, c *corpus.Corpus, pending []Seat, o Options, corpusSHA, dir string, sum Summary) (Summary, error) {
	var mu sync.Mutex
	done := sum.Resumed
	total := sum.Resumed + len(pending)
	failed := make([]*Failure, len(pending))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Concurrency)
	for i, s := range pending {
		g.Go(func() error {
			f, err := playSeat(ctx, c, s, o, corpusSHA, dir)
			mu.Lock()
			defer mu.Unlock()
			failed[i] = f
			done++
			if o.Progress != nil {
				o.Progress(done, total)
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return Summary{}, err
	}
	for _, f := range failed { // in seat order, whatever order sessions ended in
		if f != nil {
			sum.Failed = append(sum.Failed, *f)
		} else {
			sum.Played++
		}
	}
	return sum, nil
}

// Pending lists the seats that out does not hold a usable recording of,
// which Run would play; out holding another agent's or corpus's sessions
// is an error.
func Pending(c *corpus.Corpus, seats []Seat, o Options, out string) ([]Seat, error) {
	corpusSHA, err := digest.FileSHA256(filepath.Join(c.Dir, corpus.ManifestName))
	if err != nil {
		return nil, err
	}
	return pendingSeats(filepath.Join(out, SessionsDir), seats, o, corpusSHA)
}

// pendingSeats are the seats without a usable recording in dir. A
// recording of another corpus, agent, protocol or model is an error:
// out belongs to one agent on one corpus.
func pendingSeats(dir string, seats []Seat, o Options, corpusSHA string) ([]Seat, error) {
	var pending []Seat
	for _, s := range seats {
		r, err := ReadRecording(filepath.Join(dir, s.Name()))
		if errors.Is(err, os.ErrNotExist) {
			pending = append(pending, s)
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := sameRun(r, o, corpusSHA); err != nil {
			return nil, fmt.Errorf("%s: %w; seat this agent into another --out folder", filepath.Join(dir, s.Name()), err)
		}
		if r.Error != "" || r.Samples != InputFrames(s.Conversation, o.Tail)*proto.FrameSamples {
			pending = append(pending, s) // failed, or recorded with another tail
		}
	}
	return pending, nil
}

// sameRun reports a recording made by another run than o's: another
// corpus, agent, protocol, model or playback rate.
func sameRun(r *Recording, o Options, corpusSHA string) error {
	switch {
	case r.CorpusSHA256 != corpusSHA:
		return fmt.Errorf("a session of another corpus (corpus.json sha256 %s)", r.CorpusSHA256)
	case r.Agent != o.Agent || r.Protocol != o.Endpoint.Protocol || r.Model != o.Model || r.Rate != o.Rate():
		return fmt.Errorf("a session of agent %s over %s (model %q, rate %g)", r.Agent, r.Protocol, r.Model, r.Rate)
	}
	return nil
}

// playSeat plays one seat, retrying failed sessions, and writes its
// recording; it returns the seat's failure when every try failed.
func playSeat(ctx context.Context, c *corpus.Corpus, s Seat, o Options, corpusSHA, dir string) (*Failure, error) {
	var rec *Recording
	var heard []float32
	lastErr := agent.Retry(ctx, o.Retries+1, o.Backoff, nil, func() (err error) {
		rec, heard, err = Session(ctx, c, s, o, corpusSHA)
		return err
	})
	if lastErr == nil {
		return nil, WriteRecording(dir, s.Name(), rec, heard)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	rec = FailedRecording(s, o, corpusSHA, fmt.Sprintf("after %d tries: %v", o.Retries+1, lastErr))
	f := &Failure{Conversation: s.Conversation.ID, Seat: s.Speaker, Error: rec.Error}
	return f, WriteRecording(dir, s.Name(), rec, nil)
}

// Session plays one seat's session once, without retries: it sends the
// seat's Mix (the conversation and o.Tail) and returns the recording and
// what a listener heard from the agent, or the session's error.
// corpusSHA is the sha256 of the corpus's corpus.json.
func Session(ctx context.Context, c *corpus.Corpus, s Seat, o Options, corpusSHA string) (*Recording, []float32, error) {
	channels, err := c.Channels16k(s.Conversation)
	if err != nil {
		return nil, nil, err
	}
	input := Mix(channels, s.Speaker, InputFrames(s.Conversation, o.Tail))
	heard, events, err := playOnce(ctx, input, o)
	if err != nil {
		return nil, nil, err
	}
	if events == nil {
		events = []agent.ProviderEvent{}
	}
	rec := newRecording(s, o, corpusSHA)
	rec.Samples, rec.Duration, rec.Events = len(heard), float64(len(heard))/proto.SampleRate, events
	return rec, heard, nil
}

// FailedRecording is the recording of a seat whose session failed for
// good: its error (agent.CutError) and no audio.
func FailedRecording(s Seat, o Options, corpusSHA, message string) *Recording {
	rec := newRecording(s, o, corpusSHA)
	rec.Error = agent.CutError(message)
	return rec
}

// newRecording is a seat's recording without its audio and events.
func newRecording(s Seat, o Options, corpusSHA string) *Recording {
	return &Recording{SchemaVersion: RecordingSchemaVersion, Conversation: s.Conversation.ID, Seat: s.Speaker,
		Speakers: s.Conversation.Speakers, CorpusSHA256: corpusSHA, Agent: o.Agent, Protocol: o.Endpoint.Protocol,
		Model: o.Model, Rate: o.Rate(), Events: []agent.ProviderEvent{}}
}

// playOnce opens a session and plays input over it within the session's
// deadline (harness.PlaySession): its length, and the handshake.
func playOnce(ctx context.Context, input []float32, o Options) (heard []float32, events []agent.ProviderEvent, err error) {
	err = harness.PlaySession(ctx, o.Endpoint, inputLength(input), func(ctx context.Context, sess proto.Session) (err error) {
		heard, events, err = Play(ctx, sess, input)
		return err
	})
	return heard, events, err
}

// inputLength is how long input lasts in session time.
func inputLength(input []float32) time.Duration {
	return time.Duration(len(input)/proto.FrameSamples) * proto.FrameDuration
}

// Estimate is how long the seats take at most on the wall, spread evenly
// over the concurrency: each session's length (conversation and tail) at
// the endpoint's playback rate, with its handshake (harness.SessionDeadline).
func Estimate(seats []Seat, o Options) time.Duration {
	var total time.Duration
	for _, s := range seats {
		total += harness.SessionDeadline(time.Duration(InputFrames(s.Conversation, o.Tail))*proto.FrameDuration, o.Endpoint)
	}
	perLane := float64(total) / float64(max(o.Concurrency, 1)) / o.Rate()
	return time.Duration(perLane).Round(time.Second)
}
