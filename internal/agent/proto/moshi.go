package proto

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/coder/websocket"
)

// MoshiName is the protocol of Kyutai's Moshi server
// (docs/agents.md#moshi): binary WebSocket messages whose first byte is
// their kind, audio as Ogg Opus both ways, the model's text tokens beside
// it. Like duplex it is a continuous channel: the server streams audio,
// silence included, as fast as it hears the client's.
const MoshiName = "moshi"

// The kinds of message (rust/protocol.md, rust/moshi-server/src/protocol.rs
// in kyutai-labs/moshi).
const (
	moshiHandshake   byte = 0
	moshiAudio       byte = 1
	moshiText        byte = 2
	moshiControl     byte = 3
	moshiMetadata    byte = 4
	moshiError       byte = 5
	moshiPing        byte = 6
	moshiColoredText byte = 7
	moshiImage       byte = 8
	moshiCodes       byte = 9
)

const (
	// moshiKeyHeader carries the credential unless the endpoint names a
	// header or a query parameter (moshi-server's is auth_id).
	moshiKeyHeader = "kyutai-api-key"
	// moshiReadLimit bounds one message: an Ogg page is at most 65,307
	// bytes, and Moshi sends one page of 80 ms at a time.
	moshiReadLimit = 256 << 10
	// moshiSerial is the Ogg serial number of the streams floorbench
	// writes: one stream each way, so any fixed number does.
	moshiSerial = 0x666c6272
)

func init() {
	protocols[MoshiName] = dialMoshi
	servers[MoshiName] = serveMoshi
}

// moshiMessage is one message: its kind and what follows the kind byte.
type moshiMessage struct {
	kind    byte
	payload []byte
}

// parseMoshi reads one message and checks its payload as its kind
// defines it. An empty message is kind 0xff with no payload: both
// reference implementations skip it.
func parseMoshi(typ websocket.MessageType, data []byte) (moshiMessage, error) {
	if typ != websocket.MessageBinary {
		return moshiMessage{}, fmt.Errorf("%w: a text WebSocket message (%d bytes); moshi messages are binary", ErrProtocol, len(data))
	}
	if len(data) == 0 {
		return moshiMessage{kind: 0xff}, nil
	}
	m := moshiMessage{kind: data[0], payload: data[1:]}
	p := m.payload
	switch m.kind {
	case moshiHandshake:
		return m, checkMoshiHandshake(p)
	case moshiAudio, moshiImage, moshiCodes:
	case moshiText, moshiError:
		if !utf8.Valid(p) {
			return m, fmt.Errorf("%w: a %s message of %d bytes that are not UTF-8", ErrProtocol, moshiKindName(m.kind), len(p))
		}
	case moshiColoredText:
		if len(p) == 0 || !utf8.Valid(p[1:]) {
			return m, fmt.Errorf("%w: a colored text message of %d bytes that is not a color and UTF-8", ErrProtocol, len(p))
		}
	case moshiControl:
		if len(p) != 1 || p[0] > 3 {
			return m, fmt.Errorf("%w: a control message of %d bytes that is not one of start, endTurn, pause, restart", ErrProtocol, len(p))
		}
	case moshiMetadata:
		if !json.Valid(p) {
			return m, fmt.Errorf("%w: a metadata message of %d bytes that is not JSON", ErrProtocol, len(p))
		}
	case moshiPing:
		if len(p) != 0 {
			return m, fmt.Errorf("%w: a ping message with %d bytes of payload (it has none)", ErrProtocol, len(p))
		}
	default:
		// protocol.md says to discard unknown kinds; both reference peers
		// refuse them (moshi-server's MsgType::from_u8, the web client's
		// decodeMessage), and floorbench does too.
		return m, fmt.Errorf("%w: a message of kind %d, not one the moshi protocol defines (0 to 9)", ErrProtocol, m.kind)
	}
	return m, nil
}

// checkMoshiHandshake accepts the handshakes the references send: none
// (moshi/moshi/server.py), a version and a model byte (the web client's
// encoder.ts), or both as u32 little-endian (rust/protocol.md); the
// protocol version is 0.
func checkMoshiHandshake(p []byte) error {
	var version uint32
	switch len(p) {
	case 0:
	case 2:
		version = uint32(p[0])
	case 8:
		version = binary.LittleEndian.Uint32(p)
	default:
		return fmt.Errorf("%w: a handshake of %d bytes (want 0, 2 or 8: protocol and model versions)", ErrProtocol, len(p))
	}
	if version != 0 {
		return fmt.Errorf("%w: the handshake declares protocol version %d; floorbench speaks version 0", ErrProtocol, version)
	}
	return nil
}

// moshiKindName names a kind for an error.
func moshiKindName(kind byte) string {
	names := []string{"handshake", "audio", "text", "control", "metadata", "error", "ping", "colored text", "image", "codes"}
	if int(kind) < len(names) {
		return names[kind]
	}
	return fmt.Sprintf("kind %d", kind)
}

// encodeMoshi is a message of kind with payload.
func encodeMoshi(kind byte, payload []byte) message {
	return message{websocket.MessageBinary, append([]byte{kind}, payload...)}
}

// dialMoshi opens a Moshi session: connect with the credential, if any, in
// kyutai-api-key (unless the endpoint names another header or a query
// parameter), wait for the server's handshake, start.
func dialMoshi(ctx context.Context, ep Endpoint, clock *Clock) (Session, error) {
	if ep.AuthHeader == "" && ep.AuthQuery == "" {
		ep.AuthHeader = moshiKeyHeader
	}
	// The client's stream declares the encoder's lookahead as its
	// pre-skip: a server that drops it hears the input sample for sample.
	in, err := newOpusStreamWriter(moshiSerial, SampleRate, opusLookahead48k)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ep.where(), err)
	}
	out, err := newOpusStreamReader(SampleRate)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ep.where(), err)
	}
	conn, err := connect(ctx, ep, clock, nil)
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(moshiReadLimit)
	if err := moshiAwaitHandshake(ctx, ep, clock, conn); err != nil {
		conn.CloseNow()
		return nil, fmt.Errorf("%s: %w", ep.where(), err)
	}
	return startSession(ep, conn, clock, &moshiClient{in: in, out: out}, ep.IdleTimeout), nil
}

// moshiAwaitHandshake waits for the server's handshake, which it sends
// once its model is ready; an error message before it refuses the session.
func moshiAwaitHandshake(ctx context.Context, ep Endpoint, clock *Clock, conn *websocket.Conn) error {
	ctx, cancel := clock.WithTimeout(ctx, ep.HandshakeTimeout)
	defer cancel()
	typ, data, err := conn.Read(ctx)
	if err != nil {
		return handshakeError(ctx, ep, "waiting for the handshake", err)
	}
	m, err := parseMoshi(typ, data)
	switch {
	case err != nil:
		return err
	case m.kind == moshiError:
		return fmt.Errorf("%w: the agent refused the session: %s", ErrProtocol, ep.scrub(string(m.payload)))
	case m.kind != moshiHandshake:
		return fmt.Errorf("%w: the agent's first message is %s, not its handshake", ErrProtocol, moshiKindName(m.kind))
	}
	return nil
}

// moshiClient is the moshi protocol's part of a client session: in is
// used by Send alone, the rest by the session's reader alone. The agent's
// audio, decoded at 16 kHz, is heard 20 ms frame by 20 ms frame on its
// own clock, as duplex's channel is.
type moshiClient struct {
	in      *opusStreamWriter
	started bool // the stream's headers went out
	out     *opusStreamReader
	pending []float32 // decoded audio short of a whole frame
}

func (*moshiClient) continuous() bool { return true }

// encode sends frame as one 20 ms Opus packet on its own page, after the
// stream's OpusHead and OpusTags pages the first time (as the web
// client's opus-recorder sends its header pages first).
func (c *moshiClient) encode(frame []float32) ([]message, error) {
	var msgs []message
	if !c.started {
		c.started = true
		msgs = append(msgs, encodeMoshi(moshiAudio, c.in.headers()))
	}
	page, err := c.in.page(frame)
	if err != nil {
		return nil, err
	}
	return append(msgs, encodeMoshi(moshiAudio, page)), nil
}

func (c *moshiClient) receive(s *session, typ websocket.MessageType, data []byte) error {
	m, err := parseMoshi(typ, data)
	if err != nil {
		return err
	}
	switch m.kind {
	case moshiAudio:
		x, err := c.out.read(m.payload)
		if err != nil {
			return err
		}
		c.pending = append(c.pending, x...)
		for len(c.pending) >= FrameSamples {
			frame := append([]float32(nil), c.pending[:FrameSamples]...)
			c.pending = c.pending[FrameSamples:]
			if err := s.channelFrame(frame); err != nil {
				return err
			}
		}
	case moshiText:
		return s.event(Event{Kind: Transcript, Name: "text", AgentMs: -1, Text: s.ep.scrub(string(m.payload))})
	case moshiError:
		return s.event(Event{Kind: ProviderError, AgentMs: -1, Message: s.ep.scrub(string(m.payload))})
	case moshiHandshake:
		return fmt.Errorf("%w: a second handshake in the session", ErrProtocol)
	}
	// Control, metadata, ping, colored text, image, codes: nothing heard
	// or recorded.
	return nil
}
