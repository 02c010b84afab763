package proto

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// testLead is how far ahead the tests' realtime servers send audio: long,
// so that even when a loaded machine serves slower than the playback rate
// (the server's decisions then reach the client late) the client still
// holds audio that a barge-in must drop.
const testLead = 4 * time.Second

// serve starts a real protocol server on 127.0.0.1 and returns its URL.
func serve(t *testing.T, protocol string, newAgent NewAgent) string {
	t.Helper()
	h, err := NewHandler(protocol, newAgent, ServerOptions{Rate: testRate, RealtimeLead: testLead})
	if err != nil {
		t.Fatal(err)
	}
	return serveHandler(t, h)
}

// serveHandler serves h on 127.0.0.1 and returns its ws:// URL.
func serveHandler(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// servePipe serves protocol with newAgent over a Pipe until the test
// ends and returns the endpoint that dials it at testRate. Inside a
// testing/synctest bubble its sessions keep the bubble's fake time: the
// same audio, events and agent times at any load.
func servePipe(t *testing.T, protocol string, newAgent NewAgent) Endpoint {
	t.Helper()
	h, err := NewHandler(protocol, newAgent, ServerOptions{Rate: testRate, RealtimeLead: testLead})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { Serve(ctx, p, h); close(served) }()
	t.Cleanup(func() { cancel(); <-served })
	return Endpoint{Protocol: protocol, URL: PipeURL, Rate: testRate, Dial: p.Dial}
}

// dialPipe opens a session at ep, its opening bounded by a minute.
func dialPipe(t *testing.T, ep Endpoint) Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Dial(ctx, ep)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// dial opens a session at testRate, its opening bounded by a wall-clock
// minute.
func dial(t *testing.T, protocol, url string) Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Dial(ctx, Endpoint{Protocol: protocol, URL: url, Rate: testRate})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// recording is what a run heard and the events it saw.
type recording struct {
	heard  []float32
	events []Output
}

// kinds lists the recording's event kinds in order.
func (r recording) kinds() []EventKind {
	var out []EventKind
	for _, o := range r.events {
		out = append(out, o.Event.Kind)
	}
	return out
}

// event returns the first event of kind, or fails.
func (r recording) event(t *testing.T, kind EventKind) Event {
	t.Helper()
	for _, o := range r.events {
		if o.Event.Kind == kind {
			return *o.Event
		}
	}
	t.Fatalf("no %s event in %v", kind, r.kinds())
	return Event{}
}

// run plays n frames of input to the session, then silence until the
// recording satisfies until (nil: at once; a loaded machine may serve
// slower than the playback rate), records every output, and closes the
// session.
func run(t *testing.T, s Session, n int, input func(k int) []float32, until func(*recording) bool) recording {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var rec recording
	var mu sync.Mutex
	done := make(chan error, 1)
	go func() {
		for {
			o, err := s.Recv(ctx)
			if err != nil {
				done <- err
				return
			}
			mu.Lock()
			if o.Event != nil {
				rec.events = append(rec.events, o)
			} else {
				rec.heard = append(rec.heard, o.Audio...)
			}
			mu.Unlock()
		}
	}()
	silence := make([]float32, FrameSamples)
	waiting := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return until != nil && !until(&rec)
	}
	for k := 0; k < n || waiting(); k++ {
		x := silence
		if k < n {
			x = input(k)
		}
		if err := s.Send(ctx, x); err != nil {
			t.Fatalf("frame %d: %v", k, err)
		}
	}
	s.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("the session ended with %v, want ErrClosed", err)
	}
	mu.Lock()
	defer mu.Unlock()
	return rec
}

// responseHeard reports whether a response has ended and its audio, sent
// up to lead ahead, has been heard.
func responseHeard(lead time.Duration) func(*recording) bool {
	return func(rec *recording) bool {
		for _, o := range rec.events {
			if o.Event.Kind == ResponseDone {
				return timeOf(int64(len(rec.heard))) > o.At+lead+2*FrameDuration
			}
		}
		return false
	}
}

// leadOf is how far ahead a test server of protocol sends audio.
func leadOf(protocol string) time.Duration {
	if protocol == DuplexName {
		return 0
	}
	return testLead
}

// level makes frames: value v for frames in [from, to), silence elsewhere.
func level(v float32, from, to int) func(k int) []float32 {
	return func(k int) []float32 {
		x := make([]float32, FrameSamples)
		if k >= from && k < to {
			for i := range x {
				x[i] = v
			}
		}
		return x
	}
}

// constant is n samples of value v: the tests' "speech", whose every
// sample survives PCM16, resampling and playback unchanged.
func constant(v float32, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = v
	}
	return x
}

// skipLossy skips a test of exact samples and response events over
// moshi: Opus is lossy, removes DC (the tests' constant "speech") and the
// protocol has no response events. moshi_test.go tests the same with a
// tone and tolerances argued from the codec.
func skipLossy(t *testing.T, protocol string) {
	t.Helper()
	if protocol == MoshiName {
		t.Skip("moshi is lossy and has no response events: moshi_test.go")
	}
}

// count is how many samples of x are within 0.01 of v.
func count(x []float32, v float32) int {
	n := 0
	for _, s := range x {
		if s > v-0.01 && s < v+0.01 {
			n++
		}
	}
	return n
}

// scripted is an agent that starts saying utt after input frame sayAt
// and, when stopOnLoud, stops as soon as an input frame is loud (on
// average: realtime's frames are four samples behind the input's) while
// it talks. It records what it was told it said.
type scripted struct {
	sayAt      int
	utt        []float32
	text       string // utt's words
	stopOnLoud bool
	k          int
	own        []float32
}

func mean(x []float32) float32 {
	var sum float32
	for _, v := range x {
		sum += v
	}
	return sum / float32(max(1, len(x)))
}

func (a *scripted) Hear(in, own []float32) (Decision, error) {
	if own != nil {
		a.own = append(a.own, own...)
	}
	var d Decision
	if a.k == a.sayAt {
		d.Say, d.Text = a.utt, a.text
	}
	if a.stopOnLoud && own != nil && mean(in) > 0.1 {
		d.Stop = true
	}
	a.k++
	return d, nil
}

// mustListen listens on a free port of 127.0.0.1.
func mustListen() net.Listener {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	return l
}

// peak is the largest magnitude in x.
func peak(x []float32) float32 {
	var p float32
	for _, v := range x {
		p = max(p, v, -v)
	}
	return p
}

// refused sends msgs to the server at url as a raw client, reads until
// the connection ends and returns what the server sent and the error
// that ended it (a websocket.CloseError when the server closed). Every
// test of a server's refusal of bad input reads it so.
func refused(t *testing.T, url string, msgs []message) ([]message, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	for _, m := range msgs {
		c.Write(ctx, m.typ, m.data)
	}
	var said []message
	for {
		typ, data, err := c.Read(ctx)
		if err != nil {
			return said, err
		}
		said = append(said, message{typ, data})
	}
}

// fakeRealtime is a fake realtime endpoint: it accepts a client, sends
// session.created, takes its session.update, answers session.updated
// with turnDetection (PCM16 both ways), then hands the connection and a
// function sending one event to then.
func fakeRealtime(turnDetection string, then func(ctx context.Context, conn *websocket.Conn, say func(string))) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer conn.CloseNow()
		ctx := r.Context()
		say := func(e string) { conn.Write(ctx, websocket.MessageText, []byte(e)) }
		say(`{"type":"session.created","session":{}}`)
		if _, _, err := conn.Read(ctx); err != nil {
			return
		}
		say(`{"type":"session.updated","session":{"input_audio_format":"pcm16","output_audio_format":"pcm16","turn_detection":` + turnDetection + `}}`)
		then(ctx, conn, say)
	})
}
