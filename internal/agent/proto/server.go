package proto

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Agent is the server side's brain for one connection. The server feeds it
// the client's audio one 20 ms frame at a time, in order, and does what it
// decides. The server keeps time by the audio it hears: input frame k ends
// at (k+1)·20 ms, and what the agent decides after it is said from that
// moment on, whatever the client's playback rate. An Agent that also
// implements io.Closer is closed with its connection.
type Agent interface {
	// Hear takes input frame k and own, what the agent was saying during
	// it (nil while silent), and decides what it does from frame k+1 on.
	Hear(in, own []float32) (Decision, error)
}

// Decision is what an agent does after one input frame.
type Decision struct {
	// Say starts this utterance (16 kHz) with the next frame; ignored while
	// the agent is talking.
	Say []float32
	// Text is what Say says, as words: a server whose protocol carries
	// a transcript beside the audio sends it ("" sends none).
	Text string
	// Stop stops the agent's talking with the next frame (a yield). A
	// server announces a stop as the protocol says a barge-in is
	// announced (realtime: input_audio_buffer.speech_started).
	Stop bool
	// SpeechStarted and SpeechStopped announce what the agent's speech
	// detector heard.
	SpeechStarted, SpeechStopped bool
}

// ServerOptions bound a protocol server.
type ServerOptions struct {
	// Rate is the playback rate of the clients (0 means 1): the timeouts
	// below are in session time.
	Rate float64
	// MaxSessions is how many connections are served at once; more are
	// refused with 503 (0 means DefaultMaxSessions).
	MaxSessions int
	// HandshakeTimeout bounds the wait for a client's first message, and
	// IdleTimeout the wait for each later one (0 means the Endpoint
	// defaults, DefaultHandshakeTimeout and 30 s).
	HandshakeTimeout, IdleTimeout time.Duration
	// RealtimeLead is how far ahead of playback a realtime server sends
	// an utterance's audio (0 means DefaultRealtimeLead).
	RealtimeLead time.Duration
	// Name is the agent's name in the duplex hello.
	Name string
	// Log receives one line per connection opened and closed (nil: none).
	Log *log.Logger
}

// DefaultMaxSessions is how many sessions a server holds at once unless
// told otherwise.
const DefaultMaxSessions = 16

// defaultServerIdle is how long a server waits for a client's next message.
const defaultServerIdle = 30 * time.Second

// fromClient makes a client's string fit to print (Endpoint.scrub): a
// server holds no credential of its clients.
var fromClient = Endpoint{}.scrub

// servers are the server sides of the protocols, each registered by its
// file beside its dialer.
var servers = map[string]func(*serverConn) error{}

// NewAgent makes the brain of one connection.
type NewAgent func() (Agent, error)

// NewHandler serves the named protocol to WebSocket clients, one Agent per
// connection.
func NewHandler(protocol string, newAgent NewAgent, opt ServerOptions) (*Handler, error) {
	if err := CheckProtocol(protocol); err != nil {
		return nil, err
	}
	clock, err := NewClock(opt.Rate)
	if err != nil {
		return nil, err
	}
	if opt.MaxSessions == 0 {
		opt.MaxSessions = DefaultMaxSessions
	}
	if opt.HandshakeTimeout == 0 {
		opt.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if opt.IdleTimeout == 0 {
		opt.IdleTimeout = defaultServerIdle
	}
	if opt.RealtimeLead == 0 {
		opt.RealtimeLead = DefaultRealtimeLead
	}
	return &Handler{serve: servers[protocol], newAgent: newAgent, opt: opt, clock: clock, slots: make(chan struct{}, opt.MaxSessions)}, nil
}

// Handler accepts WebSocket connections up to its slots and runs one
// protocol server on each, in the request's goroutine. A session ends when
// its client goes, when a wait runs out, or when the request's context
// ends (Serve ends them all).
type Handler struct {
	serve    func(*serverConn) error
	newAgent NewAgent
	opt      ServerOptions
	clock    *Clock // converts timeouts to wall time
	slots    chan struct{}
	sessions sync.WaitGroup
}

// ServeHTTP serves one connection.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case h.slots <- struct{}{}:
		h.sessions.Add(1)
		defer func() { <-h.slots; h.sessions.Done() }()
	default:
		http.Error(w, fmt.Sprintf("the agent is serving %d sessions, its most", h.opt.MaxSessions), http.StatusServiceUnavailable)
		return
	}
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept has answered the request
	}
	defer conn.CloseNow()
	c := &serverConn{conn: conn, ctx: r.Context(), opt: h.opt, clock: h.clock, newAgent: h.newAgent, request: r}
	h.logf("%s: session opened", r.RemoteAddr)
	err = h.serve(c)
	if c.agent != nil {
		if closer, ok := c.agent.(io.Closer); ok {
			closer.Close()
		}
	}
	if err != nil {
		h.logf("%s: session ended: %v", r.RemoteAddr, err)
		return
	}
	h.logf("%s: session closed", r.RemoteAddr)
}

func (h *Handler) logf(format string, args ...any) {
	if h.opt.Log != nil {
		h.opt.Log.Printf(format, args...)
	}
}

// Serve serves h on l until ctx ends, then ends every session and returns
// once their handlers have returned.
func Serve(ctx context.Context, l net.Listener, h *Handler) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: h.clock.Wall(h.opt.HandshakeTimeout),
		BaseContext: func(net.Listener) context.Context { return ctx }}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		srv.Close()
	}()
	err := srv.Serve(l)
	cancel()
	<-stopped
	h.sessions.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// serverConn is one connection on the server side.
type serverConn struct {
	conn     *websocket.Conn
	ctx      context.Context
	opt      ServerOptions
	clock    *Clock
	newAgent NewAgent
	agent    Agent
	frames   int64 // input frames heard
	// request is the client's handshake: a protocol may read its header
	// and query (realtime: the API shape, the model).
	request *http.Request
}

// read reads the client's next message within timeout (session time).
func (c *serverConn) read(timeout time.Duration) (websocket.MessageType, []byte, error) {
	ctx, cancel := c.clock.WithTimeout(c.ctx, timeout)
	defer cancel()
	typ, data, err := c.conn.Read(ctx)
	if err != nil && ctx.Err() != nil && c.ctx.Err() == nil {
		return 0, nil, fmt.Errorf("no message from the client for %v of session time", timeout)
	}
	return typ, data, err
}

// write sends one message within the idle timeout.
func (c *serverConn) write(m message) error {
	ctx, cancel := c.clock.WithTimeout(c.ctx, c.opt.IdleTimeout)
	defer cancel()
	return c.conn.Write(ctx, m.typ, m.data)
}

// closeWith ends the connection after a refusal or a protocol error.
func (c *serverConn) closeWith(code websocket.StatusCode, reason string) {
	c.conn.Close(code, reason)
}

// start makes the connection's agent.
func (c *serverConn) start() error {
	a, err := c.newAgent()
	if err != nil {
		return fmt.Errorf("starting the agent: %w", err)
	}
	c.agent = a
	return nil
}

// nowMs is the time of the audio heard so far, in milliseconds.
func (c *serverConn) nowMs() int64 { return c.frames * duplexFrameMs }

// talk is what the server side is saying: an utterance and how many of its
// frames have been said.
type talk struct {
	utt  []float32 // 16 kHz, nil while silent
	text string    // utt as words, "" if unknown
	said int       // frames of utt said
}

// frames is how many 20 ms frames utt fills (the last one padded).
func (t *talk) frames() int { return (len(t.utt) + FrameSamples - 1) / FrameSamples }

// frame is frame i of the utterance, padded with silence.
func (t *talk) frame(i int) []float32 {
	out := make([]float32, FrameSamples)
	copy(out, t.utt[min(i*FrameSamples, len(t.utt)):min((i+1)*FrameSamples, len(t.utt))])
	return out
}

// next is the frame said next, nil once the utterance is over.
func (t *talk) next() []float32 {
	if t.utt == nil || t.said >= t.frames() {
		t.utt = nil
		return nil
	}
	f := t.frame(t.said)
	t.said++
	return f
}

// stepFrames appends x to the input short of a whole frame in *pending
// and gives step every whole FrameSamples frame it then holds, in order,
// keeping the rest for the next audio; it stops at step's first error.
// Every server that takes its input in pieces of any length frames it so.
func stepFrames(pending *[]float32, x []float32, step func([]float32) error) error {
	*pending = append(*pending, x...)
	for len(*pending) >= FrameSamples {
		frame := append([]float32(nil), (*pending)[:FrameSamples]...)
		*pending = (*pending)[FrameSamples:]
		if err := step(frame); err != nil {
			return err
		}
	}
	return nil
}

// serve gives handle each message the client sends, in order, until the
// session ends (endOfSession of the read's error: a close, or no message
// within the idle timeout) or handle fails.
func (c *serverConn) serve(handle func(websocket.MessageType, []byte) error) error {
	for {
		typ, data, err := c.read(c.opt.IdleTimeout)
		if err != nil {
			return endOfSession(err)
		}
		if err := handle(typ, data); err != nil {
			return err
		}
	}
}
