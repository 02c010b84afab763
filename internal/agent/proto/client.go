package proto

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"github.com/floorbench/floorbench/internal/credential"
)

// wire is what a protocol's client adds to the session every protocol
// shares: how an input frame goes out and what a message from the agent
// means.
type wire interface {
	// encode turns one 20 ms input frame into the messages that carry it.
	encode(frame []float32) ([]message, error)
	// receive handles one message from the agent.
	receive(s *session, typ websocket.MessageType, data []byte) error
	// continuous reports whether the agent's audio is a continuous
	// channel of 20 ms frames that keeps its own time (duplex): its frames
	// are heard in their slots on that channel (session.channelFrame),
	// not rendered from a playback buffer.
	continuous() bool
}

// message is one WebSocket message.
type message struct {
	typ  websocket.MessageType
	data []byte
}

// outputBuffer is how many outputs wait for Recv before the session's
// playback waits for it: 10 s of heard frames.
const outputBuffer = 500

// session is the client side of every protocol: it paces input frames on
// the clock, reads the agent's messages in one goroutine and renders what
// is heard in another, one frame per 20 ms slot.
type session struct {
	ep      Endpoint
	conn    *websocket.Conn
	clock   *Clock
	spk     *speaker
	wire    wire
	out     chan Output
	ctx     context.Context
	cancel  context.CancelFunc
	failed  chan struct{}
	once    sync.Once
	err     error
	closing atomic.Bool
	sent    int64 // input frames sent; Send adds to it, atomically
	channel int64 // frames of a continuous channel heard; only the reader touches it
	// events counts the events reported, inSecond those of second (of
	// session time); only the reader touches them.
	events, inSecond int
	second           int64
	wg               sync.WaitGroup
	idle             time.Duration // 0: no idle timeout
}

// startSession restarts the clock at session time 0 and starts reading and
// playing. conn is open and its handshake done.
func startSession(ep Endpoint, conn *websocket.Conn, clock *Clock, w wire, idle time.Duration) *session {
	ctx, cancel := context.WithCancel(context.Background())
	clock.start = time.Now()
	s := &session{ep: ep, conn: conn, clock: clock, spk: newSpeaker(clock, ep.Limits), wire: w,
		out: make(chan Output, outputBuffer), ctx: ctx, cancel: cancel, failed: make(chan struct{}), idle: idle}
	s.wg.Add(2)
	go s.readLoop()
	go s.heartbeat()
	if !w.continuous() {
		s.wg.Add(1)
		go s.playLoop()
	}
	return s
}

// Send sends frame at its slot.
func (s *session) Send(ctx context.Context, frame []float32) error {
	if len(frame) != FrameSamples {
		return fmt.Errorf("an input frame has %d samples, want %d (20 ms at 16 kHz)", len(frame), FrameSamples)
	}
	slot := time.Duration(atomic.LoadInt64(&s.sent)+1) * FrameDuration
	if err := s.wait(ctx, slot); err != nil {
		return err
	}
	msgs, err := s.wire.encode(frame)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if err := s.write(ctx, m); err != nil {
			return err
		}
	}
	atomic.AddInt64(&s.sent, 1)
	return nil
}

// wait waits for session time t, for the session to fail, or for ctx.
func (s *session) wait(ctx context.Context, t time.Duration) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	if err := s.clock.WaitUntil(ctx, t); err != nil {
		if s.ctx.Err() != nil {
			return s.failure()
		}
		return fmt.Errorf("waiting to send to the %s: %w", s.ep.where(), err)
	}
	return nil
}

// write sends one message. Its wait is bounded by ctx, by the session and
// by the handshake timeout: an agent that takes no audio for that long has
// stopped listening.
func (s *session) write(parent context.Context, m message) error {
	ctx, cancel := s.clock.WithTimeout(parent, s.ep.HandshakeTimeout)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	err := s.conn.Write(ctx, m.typ, m.data)
	switch {
	case err == nil:
		return nil
	case s.ctx.Err() != nil || errors.Is(err, net.ErrClosed):
		// A connection closed on this side (the reader's idle timeout,
		// Close) fails the session through the reader, which knows why.
		return s.failure()
	case parent.Err() != nil:
		return s.fail(fmt.Errorf("sending to the %s: %w", s.ep.where(), parent.Err()))
	case ctx.Err() != nil:
		return s.fail(fmt.Errorf("the %s took nothing sent to it for %v of session time", s.ep.where(), s.ep.HandshakeTimeout))
	}
	if why := closedBecause(s.ep, err); why != "" {
		return s.fail(fmt.Errorf("%w: the %s %s", ErrProtocol, s.ep.where(), why))
	}
	return s.fail(fmt.Errorf("sending to the %s: %s", s.ep.where(), s.ep.scrub(err.Error())))
}

// Confirm returns once the agent has read every message sent before it:
// a WebSocket ping goes out after them and its pong must come back within
// the session's pong wait (Endpoint.pongWait). Socket buffers can hold a
// whole short session, so a sent frame proves nothing about an agent that
// has stopped reading; an answered ping does, since a peer answers it only
// after reading what came before it.
func (s *session) Confirm(ctx context.Context) error {
	select {
	case <-s.failed:
		return s.err
	default:
	}
	if err := s.ping(ctx); err != nil {
		return s.fail(err)
	}
	return nil
}

// PingInterval is how often, in session time, a session pings its agent:
// an agent that stops reading mid-session is found within this and the
// pong wait, not only at the end.
const PingInterval = 2 * time.Second

// MinPongWait is the least wall time a session waits for a pong: tests
// that play many times faster than real time on a loaded machine must not
// take a reader the scheduler held up for an agent that stopped.
const MinPongWait = 5 * time.Second

// heartbeat pings the agent every PingInterval of session time until the
// session ends, and fails the session when a ping goes unanswered.
func (s *session) heartbeat() {
	defer s.wg.Done()
	for t := PingInterval; ; t += PingInterval {
		if s.clock.WaitUntil(s.ctx, t) != nil {
			return
		}
		if err := s.ping(s.ctx); err != nil {
			s.fail(err)
			return
		}
	}
}

// ping sends a ping and waits for its pong within the pong wait: the
// handshake timeout in session time, and at least MinPongWait of wall
// time.
func (s *session) ping(parent context.Context) error {
	sent := atomic.LoadInt64(&s.sent)
	wait := max(s.clock.Wall(s.ep.HandshakeTimeout), MinPongWait)
	ctx, cancel := context.WithTimeout(parent, wait)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	err := s.conn.Ping(ctx)
	switch {
	case err == nil:
		return nil
	case s.ctx.Err() != nil || errors.Is(err, net.ErrClosed):
		return s.failure()
	case parent.Err() != nil:
		return fmt.Errorf("%w: the %s had not read its input when the session ended (%d input frames sent; a ping after them had no answer)",
			ErrStopped, s.ep.where(), sent)
	case ctx.Err() != nil:
		return fmt.Errorf("%w: the %s has stopped reading its input: a ping after input frame %d had no answer within %v",
			ErrStopped, s.ep.where(), sent, wait.Round(time.Millisecond))
	}
	if why := closedBecause(s.ep, err); why != "" {
		return fmt.Errorf("%w: the %s %s", ErrProtocol, s.ep.where(), why)
	}
	return fmt.Errorf("pinging the %s: %s", s.ep.where(), s.ep.scrub(err.Error()))
}

// Recv returns the next output; once the session has failed, the outputs
// still buffered, then the failure.
func (s *session) Recv(ctx context.Context) (Output, error) {
	select {
	case o := <-s.out:
		return o, nil
	default:
	}
	select {
	case o := <-s.out:
		return o, nil
	case <-s.failed:
		select {
		case o := <-s.out:
			return o, nil
		default:
			return Output{}, s.err
		}
	case <-ctx.Done():
		return Output{}, fmt.Errorf("waiting for the %s: %w", s.ep.where(), ctx.Err())
	}
}

// Close closes the connection (with the close handshake unless the session
// has failed) and waits for the session's goroutines.
func (s *session) Close() error {
	s.closing.Store(true)
	select {
	case <-s.failed:
		s.conn.CloseNow()
	default:
		s.conn.Close(websocket.StatusNormalClosure, "")
	}
	s.fail(ErrClosed)
	s.wg.Wait()
	return nil
}

// fail ends the session with err unless it has already ended; it returns
// the error the session ended with.
func (s *session) fail(err error) error {
	s.once.Do(func() {
		s.err = err
		close(s.failed)
		s.cancel()
	})
	return s.err
}

// failure is the error the session ended with.
func (s *session) failure() error {
	<-s.failed
	return s.err
}

// emit hands an output to Recv.
func (s *session) emit(o Output) {
	select {
	case s.out <- o:
	case <-s.ctx.Done():
	}
}

// event emits a provider event that arrived now, unless it is one more
// than the session's limits allow.
func (s *session) event(e Event) error {
	at := s.clock.Now()
	if sec := int64(at / time.Second); sec != s.second {
		s.second, s.inSecond = sec, 0
	}
	s.events++
	s.inSecond++
	if err := s.ep.Limits.CheckAgentEvents(s.events, s.inSecond); err != nil {
		return fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	s.emit(Output{At: at, Event: &e})
	return nil
}

// readLoop reads the agent's messages until the session ends.
func (s *session) readLoop() {
	defer s.wg.Done()
	for {
		typ, data, err := s.read()
		if err != nil {
			if !s.closing.Load() {
				s.fail(err)
			}
			return
		}
		if err := s.wire.receive(s, typ, data); err != nil {
			s.fail(fmt.Errorf("%s: %w", s.ep.where(), err))
			s.conn.CloseNow()
			return
		}
	}
}

// read reads one message within the idle timeout.
func (s *session) read() (websocket.MessageType, []byte, error) {
	ctx, cancel := s.ctx, context.CancelFunc(func() {})
	if s.idle > 0 {
		ctx, cancel = s.clock.WithTimeout(s.ctx, s.idle)
	}
	defer cancel()
	typ, data, err := s.conn.Read(ctx)
	switch {
	case err == nil:
		return typ, data, nil
	case s.ctx.Err() == nil && ctx.Err() != nil:
		if s.wire.continuous() {
			return 0, nil, fmt.Errorf("%w: the %s sent nothing for %v of session time (%d frames of its channel heard, %d input frames sent)",
				ErrStopped, s.ep.where(), s.idle, s.channel, atomic.LoadInt64(&s.sent))
		}
		return 0, nil, fmt.Errorf("%w: the %s sent nothing for %v of session time", ErrStopped, s.ep.where(), s.idle)
	}
	return 0, nil, s.readError(err)
}

// readError says why reading from the agent failed.
func (s *session) readError(err error) error {
	if why := closedBecause(s.ep, err); why != "" {
		return fmt.Errorf("%w: the %s %s", ErrProtocol, s.ep.where(), why)
	}
	return fmt.Errorf("reading from the %s: %s", s.ep.where(), s.ep.scrub(err.Error()))
}

// playLoop renders what is heard, one frame per slot: at (k+1)·20 ms the
// frame [k, k+1)·20 ms is complete.
func (s *session) playLoop() {
	defer s.wg.Done()
	for k := int64(0); ; k++ {
		end := time.Duration(k+1) * FrameDuration
		if s.clock.WaitUntil(s.ctx, end) != nil {
			return
		}
		x := s.spk.render((k + 1) * FrameSamples)
		s.emit(Output{At: time.Duration(k) * FrameDuration, Audio: x})
	}
}

// MaxChannelLag bounds how far a continuous channel (duplex) may fall
// behind the session, in wall time: an agent whose n-th frame comes more
// than this after its slot ends is not sending a frame every 20 ms, and
// the session fails. It is wall time so that a test playing faster than
// real time on a loaded machine does not take a stalled reader for it.
const MaxChannelLag = 5 * time.Second

// channelFrame hears frame n of a continuous channel in its slot: the
// agent answers input frame n, complete at (n+1)·20 ms, with its frame n,
// so the channel runs one frame behind the input and frame n is heard over
// [(n+1)·20, (n+2)·20) ms. The agent's audio is placed by its own clock,
// not by when it arrived, so a stalled reader or a loaded machine moves
// nothing that is scored (docs/agents.md#duplex).
func (s *session) channelFrame(x []float32) error {
	at := time.Duration(s.channel+1) * FrameDuration
	if err := s.ep.Limits.CheckAgentFramesAhead(s.channel + 1 - atomic.LoadInt64(&s.sent)); err != nil {
		return fmt.Errorf("%w: the agent's frame %d came before input frame %d was sent: %w", ErrProtocol, s.channel, s.channel, err)
	}
	if lag := s.clock.Wall(s.clock.Now() - (at + FrameDuration)); lag > MaxChannelLag {
		return fmt.Errorf("%w: the agent's frame %d came %v after its slot: a duplex agent sends one frame every 20 ms, silence when it is not talking",
			ErrProtocol, s.channel, lag.Round(time.Millisecond))
	}
	s.channel++
	s.emit(Output{At: at, Audio: x})
	return nil
}

// connect opens the WebSocket within the handshake timeout.
func connect(ctx context.Context, ep Endpoint, clock *Clock, extra map[string][]string) (*websocket.Conn, error) {
	client := &http.Client{CheckRedirect: credential.NoRedirect}
	if ep.CAFile != "" {
		t, err := caTransport(ep.CAFile)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ep.where(), err)
		}
		client.Transport = t
	}
	ctx, cancel := clock.WithTimeout(ctx, ep.HandshakeTimeout)
	defer cancel()
	if ep.Dial != nil {
		// No keep-alive: an idle connection left in the pool would
		// outlive the session (and a synctest bubble).
		t, ok := client.Transport.(*http.Transport)
		if !ok {
			t = &http.Transport{}
		}
		t.DialContext, t.DisableKeepAlives = ep.Dial, true
		client.Transport = t
	}
	conn, _, err := websocket.Dial(ctx, ep.URL, &websocket.DialOptions{HTTPHeader: ep.header(extra), HTTPClient: client})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ep.where(), handshakeError(ctx, ep, "connecting", err))
	}
	return conn, nil
}

// closedBecause says how the agent ended the connection, "" if err is not
// about that; the agent's close reason is scrubbed.
func closedBecause(ep Endpoint, err error) string {
	var ce websocket.CloseError
	switch {
	case errors.As(err, &ce):
		return fmt.Sprintf("closed the connection (status %d %q)", int(ce.Code), ep.scrub(ce.Reason))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed), errors.Is(err, io.ErrClosedPipe),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "dropped the connection"
	}
	return ""
}

// handshakeError says which step of opening a session failed, and names
// the timeout when it ran out.
func handshakeError(ctx context.Context, ep Endpoint, step string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: no answer within %v of session time", step, ep.HandshakeTimeout)
	}
	if why := closedBecause(ep, err); why != "" {
		return fmt.Errorf("%w: %s: the agent %s", ErrProtocol, step, why)
	}
	return fmt.Errorf("%s: %s", step, ep.scrub(err.Error()))
}
