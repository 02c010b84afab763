package proto

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/floorbench/floorbench/internal/credential"
	"github.com/floorbench/floorbench/internal/limits"
)

// The audio every protocol carries to and from the harness: 16 kHz mono in
// 20 ms frames. A protocol whose wire format differs (realtime's 24 kHz)
// converts at its edge.
const (
	SampleRate    = 16000
	FrameSamples  = SampleRate / 50
	FrameDuration = 20 * time.Millisecond
)

// Session is one live conversation with an agent over one protocol.
// Send and Recv may be called from different goroutines; each of them from
// one goroutine at a time. Recv must be called continually: what is not
// received holds up the session's playback.
type Session interface {
	// Send sends the next input frame (FrameSamples samples) at its slot:
	// frame k, counted from 0, covers [k, k+1)·20 ms of session time and
	// goes out once the clock reaches (k+1)·20 ms, when a live microphone
	// would have captured it. Send blocks until then.
	Send(ctx context.Context, frame []float32) error
	// Recv returns what the agent did next: a frame of what a listener
	// heard from it, or a provider event.
	Recv(ctx context.Context) (Output, error)
	// Confirm returns once the agent has read every input frame sent so
	// far, or with ErrStopped when it has stopped reading. Players call it
	// after the last frame: an agent that hangs is a failed session, not a
	// silent one.
	Confirm(ctx context.Context) error
	// Close ends the session and stops its goroutines.
	Close() error
}

// Output is one frame of what a listener heard from the agent or one
// provider event, at its session time. The heard frames come one per
// 20 ms slot, silence included, so joined they are the agent's channel on
// the session's timeline; events come as they arrive.
type Output struct {
	// At is the start of the heard frame, or when the event arrived.
	At    time.Duration
	Audio []float32 // FrameSamples samples, or nil for an event
	Event *Event
}

// EventKind names a provider event, whatever the protocol calls it.
type EventKind string

// The events a session reports (docs/agents.md#events).
const (
	// SpeechStarted and SpeechStopped: the agent's own speech detector
	// heard the client start or stop talking.
	SpeechStarted EventKind = "speech_started"
	SpeechStopped EventKind = "speech_stopped"
	// ResponseStarted and ResponseDone: the agent began or ended a
	// response (Status says whether it completed or was cancelled).
	ResponseStarted EventKind = "response_started"
	ResponseDone    EventKind = "response_done"
	// BargeIn: the client stopped playing the agent's audio because the
	// agent signalled that the user started talking over it.
	BargeIn EventKind = "barge_in"
	// ProviderError: the agent reported an error and went on.
	ProviderError EventKind = "error"
	// InputCleared: the agent dropped its input buffer as the client
	// asked (InputClearer).
	InputCleared EventKind = "input_cleared"
	// Transcript: text of what the agent says, as its provider sends it
	// beside the audio (a piece, or the whole once it is done; Name
	// says which); InputTranscript: the provider's transcription of what
	// it heard the client say.
	Transcript      EventKind = "transcript"
	InputTranscript EventKind = "input_transcript"
)

// Event is a provider event.
type Event struct {
	Kind EventKind `json:"kind"`
	// Name is the provider's name for what it sent, its message's type
	// on the wire ("input_audio_buffer.speech_started"); "" for what the
	// client did itself (BargeIn over realtime).
	Name string `json:"name,omitempty"`
	// AgentMs is the agent's own time stamp, in milliseconds of input
	// audio, or -1 where the event carries none.
	AgentMs int64 `json:"agent_ms"`
	// Status is how a response ended: completed, cancelled, ...
	Status string `json:"status,omitempty"`
	// PlayedMs is, for a barge-in, how much of the response was heard.
	PlayedMs int64 `json:"played_ms,omitempty"`
	// Code and Message are a provider error's, the message cut short and
	// with the endpoint's credential removed.
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	// Text is a transcript's text, scrubbed and cut short as a message.
	Text string `json:"text,omitempty"`
}

// Endpoint is where an agent listens and how to talk to it.
type Endpoint struct {
	Protocol string // duplex or realtime
	URL      string // ws:// or wss://
	// Credential is sent in the AuthHeader header ("Authorization" with
	// "Bearer " before it when AuthHeader is empty). It is never printed.
	Credential credential.Secret
	AuthHeader string
	// AuthQuery, when set, is the URL query parameter the credential goes
	// in instead of a header (gemini-live: key). The URL then holds the
	// credential: errors name the endpoint without its query, and every
	// string from the agent is scrubbed of it.
	AuthQuery string
	// CAFile names a PEM file of CA certificates trusted for a wss://
	// endpoint beside the system's roots ("": the system's alone).
	CAFile string
	// Rate is the playback rate (0 means 1): see Clock.
	Rate float64
	// HandshakeTimeout bounds, in session time, each step of opening the
	// session, each message sent in it and the wait for the answer to each
	// ping (at least MinPongWait of wall time; 0 means
	// DefaultHandshakeTimeout).
	HandshakeTimeout time.Duration
	// IdleTimeout ends a duplex session whose agent sends nothing for this
	// long, in session time (0 means DefaultIdleTimeout). Realtime agents
	// are silent between events by design and have none.
	IdleTimeout time.Duration
	// Realtime holds the realtime protocol's session settings.
	Realtime RealtimeOptions
	// Limits bound what the agent can make the client hold: audio queued
	// ahead of playback, items in flight, a channel ahead of the input,
	// events (the zero Limits: the defaults). Past one, the session fails
	// with an error naming it and its value.
	Limits limits.Limits
	// Dial, when set, opens the connection in place of the network: a
	// Pipe's Dial reaches a server in the same process (nil: the URL's
	// host over TCP).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error) `json:"-"`
}

// Defaults of Endpoint's timeouts, in session time.
const (
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultIdleTimeout      = 5 * time.Second
)

// dialer opens a session of one protocol.
type dialer func(ctx context.Context, ep Endpoint, clock *Clock) (Session, error)

// protocols are the protocols Dial knows, each registered by its file.
var protocols = map[string]dialer{}

// Protocols lists the protocol names Dial knows, sorted.
func Protocols() []string {
	var names []string
	for name := range protocols {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// CheckProtocol reports a protocol name Dial does not know, or one this
// binary cannot speak (moshi in the front binary, which links no Opus).
func CheckProtocol(name string) error {
	if _, ok := protocols[name]; !ok {
		return fmt.Errorf("unknown agent protocol %q (known: %s)", name, strings.Join(Protocols(), ", "))
	}
	if name == MoshiName && opusMissing != nil {
		return opusMissing
	}
	return nil
}

// Dial opens a session with the agent at ep. Every step of the opening
// waits at most ep.HandshakeTimeout, and ctx bounds the whole.
func Dial(ctx context.Context, ep Endpoint) (Session, error) {
	if err := CheckProtocol(ep.Protocol); err != nil {
		return nil, err
	}
	clock, err := NewClock(ep.Rate)
	if err != nil {
		return nil, err
	}
	if ep.HandshakeTimeout == 0 {
		ep.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if ep.IdleTimeout == 0 {
		ep.IdleTimeout = DefaultIdleTimeout
	}
	ep.Limits = ep.Limits.OrDefault()
	if ep.URL, err = ep.credentialURL(); err != nil {
		return nil, err
	}
	return protocols[ep.Protocol](ctx, ep, clock)
}

// ErrClosed is what Send and Recv return once Close was called.
var ErrClosed = errors.New("session closed")

// ErrStopped is wrapped by the error of a session whose agent stopped
// reading what was sent to it (a hung agent).
var ErrStopped = errors.New("agent stopped")

// ErrProtocol is wrapped by every error about what an agent sent: a
// malformed message, a wrong format, a refusal.
var ErrProtocol = errors.New("protocol error")
