package proto

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/coder/websocket"

	"github.com/floorbench/floorbench/internal/redact"
)

// The duplex protocol (docs/agents.md#duplex): 20 ms frames of 16 kHz
// PCM16 mono as binary messages both ways, JSON text messages for the
// hello and for events.
const (
	DuplexName     = "duplex"
	duplexProtocol = "floorbench-duplex"
	duplexVersion  = 1
	duplexEncoding = "pcm_s16le"
	duplexFrameMs  = 20
	// frameBytes is one frame on the wire.
	frameBytes = 2 * FrameSamples
	// duplexReadLimit bounds one message: frames are 640 bytes, events
	// a few hundred.
	duplexReadLimit = 64 << 10
)

func init() {
	protocols[DuplexName] = dialDuplex
	servers[DuplexName] = serveDuplex
}

// duplexMessage is any text message of the duplex protocol; Type says which
// fields it uses.
type duplexMessage struct {
	Type       string `json:"type"`
	Protocol   string `json:"protocol,omitempty"`
	Version    int    `json:"version,omitempty"`
	SampleRate int    `json:"sample_rate,omitempty"`
	Channels   int    `json:"channels,omitempty"`
	Encoding   string `json:"encoding,omitempty"`
	FrameMs    int    `json:"frame_ms,omitempty"`
	Agent      string `json:"agent,omitempty"`
	TMs        *int64 `json:"t_ms,omitempty"`
	Status     string `json:"status,omitempty"`
	Code       string `json:"code,omitempty"`
	Message    string `json:"message,omitempty"`
}

// duplexHello is the hello both sides send first.
func duplexHello(agent string) duplexMessage {
	return duplexMessage{Type: "hello", Protocol: duplexProtocol, Version: duplexVersion, SampleRate: SampleRate,
		Channels: 1, Encoding: duplexEncoding, FrameMs: duplexFrameMs, Agent: agent}
}

// parseDuplex reads one text message: a JSON object with a string type.
func parseDuplex(data []byte) (duplexMessage, error) {
	var m duplexMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%w: a text message is not a JSON event object (%d bytes; %v)", ErrProtocol, len(data), redact.JSON(err))
	}
	if m.Type == "" {
		return m, fmt.Errorf("%w: a text message has no type", ErrProtocol)
	}
	return m, nil
}

// checkHello reports the first field of a hello that this side cannot
// speak; scrub makes its strings fit to print.
func checkHello(m duplexMessage, scrub func(string) string) error {
	want := duplexHello("")
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"protocol", m.Protocol, want.Protocol}, {"version", m.Version, want.Version},
		{"sample_rate", m.SampleRate, want.SampleRate}, {"channels", m.Channels, want.Channels},
		{"encoding", m.Encoding, want.Encoding}, {"frame_ms", m.FrameMs, want.FrameMs},
	} {
		if f.got != f.want {
			return fmt.Errorf("%w: the hello declares %s %s; this protocol carries %v", ErrProtocol, f.name, quoteField(f.got, scrub), f.want)
		}
	}
	return nil
}

// quoteField prints a field value from outside for an error.
func quoteField(v any, scrub func(string) string) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", scrub(s))
	}
	return fmt.Sprint(v)
}

// encodeDuplex is a text message.
func encodeDuplex(m duplexMessage) message {
	data, _ := json.Marshal(m) // a struct of strings and ints
	return message{websocket.MessageText, data}
}

// dialDuplex opens a duplex session: connect, send the hello, read the
// agent's, start.
func dialDuplex(ctx context.Context, ep Endpoint, clock *Clock) (Session, error) {
	conn, err := connect(ctx, ep, clock, nil)
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(duplexReadLimit)
	if err := duplexHandshake(ctx, ep, clock, conn); err != nil {
		conn.CloseNow()
		return nil, fmt.Errorf("%s: %w", ep.where(), err)
	}
	return startSession(ep, conn, clock, &duplexClient{}, ep.IdleTimeout), nil
}

func duplexHandshake(ctx context.Context, ep Endpoint, clock *Clock, conn *websocket.Conn) error {
	ctx, cancel := clock.WithTimeout(ctx, ep.HandshakeTimeout)
	defer cancel()
	hello := encodeDuplex(duplexHello(""))
	if err := conn.Write(ctx, hello.typ, hello.data); err != nil {
		return handshakeError(ctx, ep, "sending the hello", err)
	}
	typ, data, err := conn.Read(ctx)
	if err != nil {
		return handshakeError(ctx, ep, "waiting for the agent's hello", err)
	}
	if typ != websocket.MessageText {
		return fmt.Errorf("%w: the agent sent audio before its hello", ErrProtocol)
	}
	m, err := parseDuplex(data)
	switch {
	case err != nil:
		return err
	case m.Type == "error":
		return fmt.Errorf("%w: the agent refused the session: %s: %s", ErrProtocol, ep.scrub(m.Code), ep.scrub(m.Message))
	case m.Type != "hello":
		return fmt.Errorf("%w: the agent's first message is %q, not its hello", ErrProtocol, ep.scrub(m.Type))
	}
	return checkHello(m, ep.scrub)
}

// duplexClient is the duplex protocol's part of a client session.
type duplexClient struct{}

func (*duplexClient) continuous() bool { return true }

func (*duplexClient) encode(frame []float32) ([]message, error) {
	return []message{{websocket.MessageBinary, encodePCM16(frame)}}, nil
}

func (*duplexClient) receive(s *session, typ websocket.MessageType, data []byte) error {
	if typ == websocket.MessageBinary {
		if len(data) != frameBytes {
			return fmt.Errorf("%w: a binary message of %d bytes; a frame is %d bytes (20 ms of 16 kHz PCM16 mono)", ErrProtocol, len(data), frameBytes)
		}
		x, _ := decodePCM16(data) // an even length
		return s.channelFrame(x)
	}
	m, err := parseDuplex(data)
	if err != nil {
		return err
	}
	if e, ok := duplexEvent(m, s.ep.scrub); ok {
		return s.event(e)
	}
	return nil
}

// duplexEvent is the session event a text message reports, its strings
// scrubbed; other types are ignored, so that the protocol can grow.
func duplexEvent(m duplexMessage, scrub func(string) string) (Event, bool) {
	e := Event{Kind: EventKind(m.Type), Name: m.Type, AgentMs: -1}
	if m.TMs != nil {
		e.AgentMs = *m.TMs
	}
	switch e.Kind {
	case SpeechStarted, SpeechStopped, ResponseStarted:
	case ResponseDone:
		e.Status = scrub(m.Status)
	case ProviderError:
		e.Code, e.Message = scrub(m.Code), scrub(m.Message)
	default:
		return Event{}, false
	}
	return e, true
}
