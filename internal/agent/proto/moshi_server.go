package proto

import (
	"encoding/binary"
	"fmt"

	"github.com/coder/websocket"
)

// serveMoshi is the server side of the moshi protocol as Moshi's servers
// speak it (docs/agents.md#moshi): start the agent, send the handshake
// (protocol and model version 0 as u32s) and the audio stream's header
// pages, then hear the client's Ogg Opus audio in 20 ms frames and answer
// every frame with 20 ms of the agent's audio, silence included, one Opus
// packet per page, and each utterance's words as a text message when it
// starts. The client's other kinds are ignored as the reference
// servers ignore them; what is malformed gets an error message (kind 5)
// and the connection is closed.
func serveMoshi(c *serverConn) error {
	c.conn.SetReadLimit(moshiReadLimit)
	in, err := newOpusStreamReader(SampleRate)
	if err != nil {
		return moshiRefuse(c, websocket.StatusInternalError, err.Error())
	}
	// The server hears input frame k once packet k+1 has brought the
	// 2.5 ms of lookahead that complete it, so its answer to the last
	// input frame comes only with the next. Its own stream declares no
	// pre-skip: its frame k decodes from its own packet and is heard in
	// slot k+1, 2.5 ms late, where a declared pre-skip would hold every
	// frame back for the next packet and the last for an input frame that
	// never comes (docs/agents.md#moshi).
	out, err := newOpusStreamWriter(moshiSerial, SampleRate, 0)
	if err != nil {
		return moshiRefuse(c, websocket.StatusInternalError, err.Error())
	}
	if err := c.start(); err != nil {
		return moshiRefuse(c, websocket.StatusInternalError, err.Error())
	}
	handshake := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 0), 0)
	s := &moshiServer{c: c, in: in, out: out}
	if err := s.send(encodeMoshi(moshiHandshake, handshake)); err != nil {
		return err
	}
	if err := s.send(encodeMoshi(moshiAudio, out.headers())); err != nil {
		return err
	}
	return c.serve(s.handle)
}

// moshiServer is the state of one moshi connection.
type moshiServer struct {
	c       *serverConn
	in      *opusStreamReader
	out     *opusStreamWriter
	pending []float32 // decoded input short of a whole frame
	talk    talk
	own     []float32 // the frame being said during the next input frame
	dc      dcHold    // keeps the encoder's DC rejection from sounding a stop
}

// handle takes one message of the client.
func (s *moshiServer) handle(typ websocket.MessageType, data []byte) error {
	m, err := parseMoshi(typ, data)
	if err != nil {
		return moshiRefuse(s.c, websocket.StatusUnsupportedData, err.Error())
	}
	if m.kind != moshiAudio {
		return nil
	}
	x, err := s.in.read(m.payload)
	if err != nil {
		return moshiRefuse(s.c, websocket.StatusUnsupportedData, err.Error())
	}
	return stepFrames(&s.pending, x, s.step)
}

// step gives the agent one input frame, does what it decides and sends
// the frame it says next.
func (s *moshiServer) step(in []float32) error {
	d, err := s.c.agent.Hear(in, s.own)
	if err != nil {
		return moshiRefuse(s.c, websocket.StatusInternalError, err.Error())
	}
	s.c.frames++
	switch {
	case d.Stop && s.talk.utt != nil:
		s.talk.utt = nil
	case d.Say != nil && !d.Stop && s.talk.utt == nil:
		s.talk = talk{utt: d.Say, text: d.Text}
		// Its words go out as text as it starts saying them, as Moshi
		// sends its text tokens beside its audio (whole here: the
		// reference agent knows them before it speaks).
		if d.Text != "" {
			if err := s.send(encodeMoshi(moshiText, []byte(d.Text))); err != nil {
				return err
			}
		}
	}
	s.own = s.talk.next()
	page, err := s.out.page(s.dc.feed(s.own))
	if err != nil {
		return moshiRefuse(s.c, websocket.StatusInternalError, err.Error())
	}
	return s.send(encodeMoshi(moshiAudio, page))
}

func (s *moshiServer) send(m message) error {
	if err := s.c.write(m); err != nil {
		return endOfSession(err)
	}
	return nil
}

// moshiRefuse sends reason as an error message, closes the connection
// with code and returns the reason for the server's log.
func moshiRefuse(c *serverConn, code websocket.StatusCode, reason string) error {
	c.write(encodeMoshi(moshiError, []byte(reason)))
	c.closeWith(code, closeReason(reason))
	return fmt.Errorf("%s", reason)
}

// dcHold shapes what the server's encoder is fed so that the agent's
// silence is coded as silence. libopus rejects DC ahead of its encoder
// in every application but VoIP (opus_encoder.c's dc_reject: y = x - m,
// m += c·(x - m), c = 6.3·3/16000 at 16 kHz, a 3 Hz one-pole high-pass),
// so zeros after a stop come out as -m, decaying 1.6 dB per 10 ms: m
// carries speech's low frequencies at 30 dB or so under the voice, up to
// -41 dBFS on the reference agent's, and a listener's VAD heard the tail
// as the agent still talking, up to 50 ms past its stop
// (docs/agents.md#moshi). Fed m itself instead, the filter outputs
// nothing and m stays where it is; the agent's next words are fed over
// that held offset, which the filter removes as it removes any DC. The
// model runs in float32 as libopus's float build does; a drift between
// the two would leave a tail that many times smaller.
type dcHold struct {
	m    float32 // the encoder's DC estimate after what was fed
	hold float32 // the offset under what is fed
}

// dcRejectCoef is libopus's c for its 3 Hz DC rejection at SampleRate.
const dcRejectCoef = float32(6.3 * 3 / SampleRate)

// feed returns what to encode for frame, the agent's 20 ms (nil while it
// is silent).
func (d *dcHold) feed(frame []float32) []float32 {
	if frame == nil {
		d.hold = d.m
	}
	x := make([]float32, FrameSamples)
	for i := range x {
		if frame != nil {
			x[i] = frame[i]
		}
		x[i] += d.hold
		d.m = dcRejectCoef*x[i] + (1-dcRejectCoef)*d.m
	}
	return x
}
