package proto

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// Pipe is an in-memory network between a server and clients in one
// process: Serve on it as on a listener and set Endpoint.Dial to its Dial.
// Each connection is a pair of in-memory byte streams that buffer what
// one side wrote up to PipeBuffer bytes, as a socket's buffers do, so no
// socket is opened; a test run
// inside a testing/synctest bubble, whose fake clock then keeps every
// session's time, plays trials in no wall time and decides the same at
// any load.
type Pipe struct {
	// Latency delays every byte written on a connection, either way, by
	// this much before its reader gets it, as a network does; set it
	// before the first Dial (0: none).
	Latency time.Duration
	conns   chan net.Conn
	closed  chan struct{}
	once    sync.Once
}

// PipeURL is the URL of an agent served on a Pipe by ServePipe; no
// name is looked up, Endpoint.Dial reaches the Pipe.
const PipeURL = "ws://agent.test/"

// ServePipe serves h on a new Pipe and returns the endpoint of protocol
// that dials it (PipeURL, at real time) and stop, which ends the server
// and every connection's context.
func ServePipe(h http.Handler, protocol string) (ep Endpoint, stop func()) {
	return NewPipe().Serve(h, protocol)
}

// Serve serves h on p as ServePipe does on a new Pipe.
func (p *Pipe) Serve(h http.Handler, protocol string) (ep Endpoint, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	srv := &http.Server{Handler: h, BaseContext: func(net.Listener) context.Context { return ctx }}
	go srv.Serve(p)
	return Endpoint{Protocol: protocol, URL: PipeURL, Dial: p.Dial}, func() { cancel(); srv.Close() }
}

// NewPipe makes a Pipe.
func NewPipe() *Pipe {
	return &Pipe{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// Accept returns the server's end of the next connection dialled.
func (p *Pipe) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.closed:
		return nil, net.ErrClosed
	}
}

// Close stops accepting; connections already open stay open.
func (p *Pipe) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}

// Addr is the pipe's address.
func (p *Pipe) Addr() net.Addr { return pipeAddr{} }

// Dial connects to the server accepting on p; the network and address
// are ignored.
func (p *Pipe) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := connPair(p.Latency)
	select {
	case p.conns <- server:
		return client, nil
	case <-p.closed:
		return nil, &net.OpError{Op: "dial", Net: "pipe", Err: net.ErrClosed}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pipeAddr is a Pipe's address.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// PipeBuffer is how many bytes a Pipe connection holds that its reader
// has not read; a writer past it waits, as on a full socket.
const PipeBuffer = 256 << 10

// connPair makes the two ends of one Pipe connection, each way delayed
// by latency.
func connPair(latency time.Duration) (net.Conn, net.Conn) {
	ab, ba := newStream(latency), newStream(latency)
	return &pipeConn{in: ba, out: ab}, &pipeConn{in: ab, out: ba}
}

// stream is one direction of a Pipe connection. Its waits are on a
// sync.Cond, which a testing/synctest bubble counts as durably blocked,
// so the bubble's clock moves on while a side waits for the other.
type stream struct {
	mu      sync.Mutex
	changed *sync.Cond
	buf     []byte
	// latency delays what is written; sent holds, for the bytes of buf
	// in order, when each write's bytes reach the reader.
	latency       time.Duration
	sent          []arrival
	writerClosed  bool // no more data: the reader gets io.EOF
	readerClosed  bool // nobody reads: the writer gets io.ErrClosedPipe
	readDeadline  deadline
	writeDeadline deadline
}

// deadline is one side's deadline and the timer that wakes its waits.
type deadline struct {
	at    time.Time
	timer *time.Timer
}

// arrival is the bytes of one write and when they reach the reader.
type arrival struct {
	n  int
	at time.Time
}

func newStream(latency time.Duration) *stream {
	s := &stream{latency: latency}
	s.changed = sync.NewCond(&s.mu)
	return s
}

// arrived is how many bytes of buf have reached the reader; s.mu is held.
func (s *stream) arrived() int {
	if s.latency == 0 {
		return len(s.buf)
	}
	n, now := 0, time.Now()
	for _, a := range s.sent {
		if a.at.After(now) {
			break
		}
		n += a.n
	}
	return n
}

// consumed drops n read bytes from the front of sent; s.mu is held.
func (s *stream) consumed(n int) {
	for n > 0 && len(s.sent) > 0 {
		k := min(n, s.sent[0].n)
		s.sent[0].n -= k
		n -= k
		if s.sent[0].n == 0 {
			s.sent = s.sent[1:]
		}
	}
}

// delay notes that k bytes were just written; a timer wakes the reader
// when they arrive. s.mu is held.
func (s *stream) delay(k int) {
	if s.latency == 0 {
		return
	}
	s.sent = append(s.sent, arrival{n: k, at: time.Now().Add(s.latency)})
	time.AfterFunc(s.latency, func() {
		s.mu.Lock()
		s.changed.Broadcast()
		s.mu.Unlock()
	})
}

// set moves d to at; waits on s see the change and, once at passes, time
// out.
func (s *stream) set(d *deadline, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	d.at = at
	if !at.IsZero() {
		d.timer = time.AfterFunc(time.Until(at), func() {
			s.mu.Lock()
			s.changed.Broadcast()
			s.mu.Unlock()
		})
	}
	s.changed.Broadcast()
}

// passed says whether d has passed; s.mu is held.
func (d *deadline) passed() bool { return !d.at.IsZero() && !time.Now().Before(d.at) }

func (s *stream) read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		switch {
		case s.readerClosed:
			return 0, net.ErrClosed
		case s.arrived() > 0:
			n := copy(p, s.buf[:s.arrived()])
			s.buf = s.buf[n:]
			s.consumed(n)
			s.changed.Broadcast()
			return n, nil
		case s.writerClosed && len(s.buf) == 0:
			return 0, io.EOF
		case s.readDeadline.passed():
			return 0, os.ErrDeadlineExceeded
		}
		s.changed.Wait()
	}
}

func (s *stream) write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for n < len(p) {
		switch {
		case s.writerClosed:
			return n, net.ErrClosed
		case s.readerClosed:
			return n, io.ErrClosedPipe
		case s.writeDeadline.passed():
			return n, os.ErrDeadlineExceeded
		case len(s.buf) < PipeBuffer:
			k := min(len(p)-n, PipeBuffer-len(s.buf))
			s.buf = append(s.buf, p[n:n+k]...)
			s.delay(k)
			n += k
			s.changed.Broadcast()
			continue
		}
		s.changed.Wait()
	}
	return n, nil
}

// closeReader and closeWriter end one side of s.
func (s *stream) closeReader() {
	s.mu.Lock()
	s.readerClosed = true
	s.changed.Broadcast()
	s.mu.Unlock()
}

func (s *stream) closeWriter() {
	s.mu.Lock()
	s.writerClosed = true
	s.changed.Broadcast()
	s.mu.Unlock()
}

// pipeConn is one end of a Pipe connection.
type pipeConn struct {
	in, out *stream
}

func (c *pipeConn) Read(p []byte) (int, error)  { return c.in.read(p) }
func (c *pipeConn) Write(p []byte) (int, error) { return c.out.write(p) }

func (c *pipeConn) Close() error {
	c.in.closeReader()
	c.out.closeWriter()
	return nil
}

func (c *pipeConn) LocalAddr() net.Addr  { return pipeAddr{} }
func (c *pipeConn) RemoteAddr() net.Addr { return pipeAddr{} }

func (c *pipeConn) SetDeadline(t time.Time) error {
	c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

func (c *pipeConn) SetReadDeadline(t time.Time) error {
	c.in.set(&c.in.readDeadline, t)
	return nil
}

func (c *pipeConn) SetWriteDeadline(t time.Time) error {
	c.out.set(&c.out.writeDeadline, t)
	return nil
}
