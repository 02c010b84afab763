package proto

import (
	"errors"
	"fmt"

	"github.com/coder/websocket"
)

// serveDuplex is the server side of the duplex protocol: read the client's
// hello and answer it, then answer every input frame with one output frame
// (silence while the agent is quiet) and the events of that moment. A
// malformed message gets an error event, then the connection is closed.
func serveDuplex(c *serverConn) error {
	c.conn.SetReadLimit(duplexReadLimit)
	if err := duplexAccept(c); err != nil {
		return err
	}
	if err := c.start(); err != nil {
		c.refuse("agent_failed", err.Error(), websocket.StatusInternalError)
		return err
	}
	s := &duplexServer{c: c}
	return c.serve(s.handle)
}

// duplexAccept reads the client's hello and answers with the server's, or
// refuses the session.
func duplexAccept(c *serverConn) error {
	typ, data, err := c.read(c.opt.HandshakeTimeout)
	if err != nil {
		return endOfSession(err)
	}
	if typ != websocket.MessageText {
		return c.refuse("bad_hello", "the first message must be the hello, a JSON text message", websocket.StatusPolicyViolation)
	}
	m, err := parseDuplex(data)
	if err == nil && m.Type != "hello" {
		err = fmt.Errorf("%w: the first message is %q, not the hello", ErrProtocol, fromClient(m.Type))
	}
	if err != nil {
		return c.refuse("bad_hello", err.Error(), websocket.StatusPolicyViolation)
	}
	if err := checkHello(m, fromClient); err != nil {
		return c.refuse("unsupported_format", err.Error(), websocket.StatusUnsupportedData)
	}
	return c.write(encodeDuplex(duplexHello(c.opt.Name)))
}

// refuse sends an error event, closes the connection and returns the
// error for the server's log.
func (c *serverConn) refuse(code, msg string, status websocket.StatusCode) error {
	c.write(encodeDuplex(duplexMessage{Type: "error", Code: code, Message: msg}))
	c.closeWith(status, code)
	return fmt.Errorf("%s: %s", code, msg)
}

// duplexServer is the state of one duplex connection.
type duplexServer struct {
	c    *serverConn
	talk talk
	own  []float32 // the frame being said during the next input frame
}

// handle answers one message of the client.
func (s *duplexServer) handle(typ websocket.MessageType, data []byte) error {
	if typ == websocket.MessageText {
		if _, err := parseDuplex(data); err != nil {
			return s.c.refuse("bad_event", err.Error(), websocket.StatusPolicyViolation)
		}
		return nil // the client's events are informational
	}
	if len(data) != frameBytes {
		return s.c.refuse("bad_frame", fmt.Sprintf("a binary message of %d bytes; a frame is %d bytes (20 ms of 16 kHz PCM16 mono)", len(data), frameBytes), websocket.StatusPolicyViolation)
	}
	in, _ := decodePCM16(data)
	d, err := s.c.agent.Hear(in, s.own)
	if err != nil {
		return s.c.refuse("agent_failed", err.Error(), websocket.StatusInternalError)
	}
	s.c.frames++
	var events []duplexMessage
	at := s.c.nowMs()
	ev := func(typ, status string) {
		events = append(events, duplexMessage{Type: typ, TMs: &at, Status: status})
	}
	if d.SpeechStarted || (d.Stop && s.talk.utt != nil) {
		ev(string(SpeechStarted), "")
	}
	wasTalking := s.talk.utt != nil
	switch {
	case d.Stop && wasTalking:
		s.talk.utt = nil
		ev(string(ResponseDone), "cancelled")
	case d.Say != nil && !d.Stop && !wasTalking:
		s.talk = talk{utt: d.Say}
		ev(string(ResponseStarted), "")
	}
	talking := s.talk.utt != nil
	s.own = s.talk.next()
	if talking && s.own == nil {
		ev(string(ResponseDone), "completed")
	}
	if d.SpeechStopped {
		ev(string(SpeechStopped), "")
	}
	return s.send(events)
}

// send sends the frame said next, then the events.
func (s *duplexServer) send(events []duplexMessage) error {
	frame := s.own
	if frame == nil {
		frame = make([]float32, FrameSamples)
	}
	if err := s.c.write(message{websocket.MessageBinary, encodePCM16(frame)}); err != nil {
		return endOfSession(err)
	}
	for _, e := range events {
		if err := s.c.write(encodeDuplex(e)); err != nil {
			return endOfSession(err)
		}
	}
	return nil
}

// endOfSession is nil when the client closed the connection normally.
func endOfSession(err error) error {
	if websocket.CloseStatus(err) == websocket.StatusNormalClosure || websocket.CloseStatus(err) == websocket.StatusGoingAway {
		return nil
	}
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return fmt.Errorf("the client closed the connection (status %d)", int(ce.Code))
	}
	return err
}
