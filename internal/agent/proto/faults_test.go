package proto

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// faultServer serves one misbehaving agent: behave runs on each accepted
// connection.
func faultServer(t *testing.T, behave func(ctx context.Context, c *websocket.Conn)) string {
	t.Helper()
	return serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		behave(r.Context(), c)
	}))
}

// readUntilGone reads until the client goes.
func readUntilGone(ctx context.Context, c *websocket.Conn) {
	for {
		if _, _, err := c.Read(ctx); err != nil {
			return
		}
	}
}

// writeJSON sends one JSON text message.
func writeJSON(ctx context.Context, c *websocket.Conn, v any) {
	data, _ := json.Marshal(v)
	c.Write(ctx, websocket.MessageText, data)
}

// openAndReceive dials and, if that works, receives until the session
// fails; it returns the first error, bounded by a wall-clock minute.
func openAndReceive(protocol, url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Dial(ctx, Endpoint{Protocol: protocol, URL: url, Rate: testRate, HandshakeTimeout: time.Second})
	if err != nil {
		return err
	}
	defer s.Close()
	return openAndReceiveOn(s)
}

// Each way an agent can misbehave gives one clear error, never a hang:
// it closes at once, never answers, sends malformed messages, or declares
// a sample rate the protocol does not carry.
func TestAMisbehavingAgentGivesOneClearError(t *testing.T) {
	duplexHelloThen := func(hello duplexMessage, then func(ctx context.Context, c *websocket.Conn)) func(context.Context, *websocket.Conn) {
		return func(ctx context.Context, c *websocket.Conn) {
			c.Read(ctx)
			writeJSON(ctx, c, hello)
			then(ctx, c)
		}
	}
	realtimeUpdatedThen := func(updated rtSession, then func(ctx context.Context, c *websocket.Conn)) func(context.Context, *websocket.Conn) {
		return func(ctx context.Context, c *websocket.Conn) {
			writeJSON(ctx, c, rtEvent{Type: "session.created", Session: &rtSession{}})
			c.Read(ctx)
			writeJSON(ctx, c, rtEvent{Type: "session.updated", Session: &updated})
			then(ctx, c)
		}
	}
	send := func(typ websocket.MessageType, data string) func(context.Context, *websocket.Conn) {
		return func(ctx context.Context, c *websocket.Conn) {
			c.Write(ctx, typ, []byte(data))
			readUntilGone(ctx, c)
		}
	}
	wrongRate := duplexHello("")
	wrongRate.SampleRate = 24000
	for _, c := range []struct {
		name, protocol string
		behave         func(context.Context, *websocket.Conn)
		want           string
	}{
		{"closes at once", DuplexName, func(context.Context, *websocket.Conn) {}, "dropped the connection"},
		{"closes at once", RealtimeName, func(context.Context, *websocket.Conn) {}, "dropped the connection"},
		{"never answers", DuplexName, readUntilGone, "waiting for the agent's hello: no answer within 1s"},
		{"never answers", RealtimeName, readUntilGone, "waiting for session.created: no answer within 1s"},
		{"goes quiet", DuplexName, duplexHelloThen(duplexHello(""), readUntilGone), "sent nothing for 5s"},
		{"malformed frame", DuplexName, duplexHelloThen(duplexHello(""), send(websocket.MessageBinary, "abc")), "a binary message of 3 bytes; a frame is 640 bytes"},
		{"malformed event", DuplexName, duplexHelloThen(duplexHello(""), send(websocket.MessageText, "{not json")), "not a JSON event object"},
		{"malformed event", RealtimeName, realtimeUpdatedThen(rtSession{}, send(websocket.MessageText, "[1,2]")), "not a JSON event object"},
		{"malformed audio", RealtimeName, realtimeUpdatedThen(rtSession{}, send(websocket.MessageText, `{"type":"response.audio.delta","delta":"%%%"}`)), "response.audio.delta delta is not base64"},
		{"audio as binary", RealtimeName, realtimeUpdatedThen(rtSession{}, send(websocket.MessageBinary, "abcd")), "realtime events are JSON text"},
		{"wrong sample rate", DuplexName, duplexHelloThen(wrongRate, readUntilGone), "the hello declares sample_rate 24000; this protocol carries 16000"},
		{"wrong sample rate", RealtimeName, realtimeUpdatedThen(rtSession{Type: "realtime", Audio: &rtAudio{Output: &rtAudioSide{Format: &rtFormat{Type: "audio/pcm", Rate: 16000}}}}, readUntilGone),
			"declares audio.output.format rate 16000; floorbench speaks audio/pcm at 24000 Hz"},
		{"wrong format", RealtimeName, realtimeUpdatedThen(rtSession{InputAudioFormat: "g711_ulaw"}, readUntilGone), `declares input_audio_format "g711_ulaw"`},
	} {
		t.Run(c.protocol+" "+c.name, func(t *testing.T) {
			url := faultServer(t, c.behave)
			err := openAndReceive(c.protocol, url)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.protocol+" agent at "+url) {
				t.Fatalf("error %v, want one naming the %s agent at %s and saying %q", err, c.protocol, url, c.want)
			}
			t.Log(err)
			if strings.Count(err.Error(), " agent at ") != 1 {
				t.Errorf("the error names the agent more than once: %v", err)
			}
		})
	}
}

// An endpoint that refuses connections, or answers with an HTTP error,
// fails the dial with one line naming it.
func TestARefusingEndpointFailsTheDial(t *testing.T) {
	url := serveHandler(t, http.NotFoundHandler())
	for _, c := range []struct{ url, want string }{
		{"ws://127.0.0.1:1/", "connection refused"},
		{url, "connecting: failed to WebSocket dial: expected handshake response status code 101 but got 404"},
	} {
		for _, protocol := range Protocols() {
			err := openAndReceive(protocol, c.url)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s at %s: %v, want one line saying %q", protocol, c.url, err, c.want)
			}
		}
	}
}

// A server refuses a client that breaks its protocol with an error event
// naming the problem, then closes the connection.
func TestTheServerRefusesABrokenClient(t *testing.T) {
	newAgent := func() (Agent, error) { return &scripted{sayAt: -1}, nil }
	duplexURL, realtimeURL := serve(t, DuplexName, newAgent), serve(t, RealtimeName, newAgent)
	hello := duplexHello("")
	badRate := hello
	badRate.SampleRate = 8000
	helloData, _ := json.Marshal(hello)
	badRateData, _ := json.Marshal(badRate)
	text := func(s string) message { return message{websocket.MessageText, []byte(s)} }
	for _, c := range []struct {
		name, url string
		send      []message
		wantCode  string
	}{
		{"duplex wrong rate", duplexURL, []message{{websocket.MessageText, badRateData}}, "unsupported_format"},
		{"duplex audio first", duplexURL, []message{{websocket.MessageBinary, make([]byte, 640)}}, "bad_hello"},
		{"duplex short frame", duplexURL, []message{{websocket.MessageText, helloData}, {websocket.MessageBinary, []byte("abc")}}, "bad_frame"},
		{"duplex bad event", duplexURL, []message{{websocket.MessageText, helloData}, text("nope")}, "bad_event"},
		{"realtime wrong rate", realtimeURL, []message{text(`{"type":"session.update","session":{"type":"realtime","audio":{"input":{"format":{"type":"audio/pcm","rate":16000}}}}}`)}, "unsupported_audio_format"},
		{"realtime no turn detection", realtimeURL, []message{text(`{"type":"session.update","session":{"turn_detection":null}}`)}, "unsupported_turn_detection"},
		{"realtime bad json", realtimeURL, []message{text(`{"type":`)}, "invalid_event"},
		{"realtime bad audio", realtimeURL, []message{text(`{"type":"input_audio_buffer.append","audio":"AAA"}`)}, "invalid_audio"},
		{"realtime odd audio", realtimeURL, []message{text(`{"type":"input_audio_buffer.append","audio":"AAAA"}`)}, "invalid_audio"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, closed := refusal(t, c.url, c.send)
			if code != c.wantCode || !closed {
				t.Errorf("error code %q, connection closed %v; want %q and closed", code, closed, c.wantCode)
			}
		})
	}
}

// refusal sends msgs as a raw client and returns the code of the error
// event the server answers with and whether it then closed.
func refusal(t *testing.T, url string, msgs []message) (string, bool) {
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
	code := ""
	for {
		typ, data, err := c.Read(ctx)
		if err != nil {
			return code, websocket.CloseStatus(err) > 0
		}
		if typ != websocket.MessageText {
			continue
		}
		var e struct {
			Type  string
			Code  string
			Error *rtError
		}
		json.Unmarshal(data, &e)
		switch {
		case e.Type == "error" && e.Error != nil:
			code = e.Error.Code
		case e.Type == "error":
			code = e.Code
		}
	}
}

// A server holds at most MaxSessions sessions; the next client gets a
// clear refusal, and a closed session frees its place.
func TestTheServerBoundsItsSessions(t *testing.T) {
	h, err := NewHandler(DuplexName, func() (Agent, error) { return &scripted{sayAt: -1}, nil }, ServerOptions{Rate: testRate, MaxSessions: 1})
	if err != nil {
		t.Fatal(err)
	}
	url := serveHandler(t, h)
	first := dial(t, DuplexName, url)
	err = openAndReceive(DuplexName, url)
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a second session: %v, want a 503 refusal", err)
	}
	first.Close()
	deadline := time.Now().Add(time.Minute)
	for len(h.slots) > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	run(t, dial(t, DuplexName, url), 3, level(0, 0, 0), nil)
}

// The credential goes in the handshake's header and nowhere else: not in
// the error of a refusing agent that echoes it, nor in the printed
// endpoint.
func TestTheCredentialIsSentAndNeverPrinted(t *testing.T) {
	const key = "sk-test-4242-secret"
	var got []string
	url := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization")+"|"+r.Header.Get("Api-Key"))
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		writeJSON(r.Context(), c, rtEvent{Type: "error", Error: &rtError{Code: "invalid_api_key", Message: "Incorrect API key provided: " + key}})
	}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, header := range []string{"", "api-key"} {
		ep := Endpoint{Protocol: RealtimeName, URL: url + "?api-key=" + key, Credential: key, AuthHeader: header, Rate: testRate}
		_, err := Dial(ctx, ep)
		if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "invalid_api_key") {
			t.Errorf("AuthHeader %q: error %v, want the refusal without the key", header, err)
		}
	}
	if want := []string{"Bearer " + key + "|", "|" + key}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("the agent saw the headers %q, want %q", got, want)
	}
	ep := Endpoint{Credential: key}
	data, _ := json.Marshal(ep)
	for _, printed := range []string{fmtAll(ep), string(data)} {
		if strings.Contains(printed, key) {
			t.Errorf("the endpoint prints its credential: %s", printed)
		}
	}
	t.Setenv("FLOORBENCH_TEST_AGENT_KEY", "")
	if _, err := CredentialFromEnv("FLOORBENCH_TEST_AGENT_KEY"); err == nil || !strings.Contains(err.Error(), "FLOORBENCH_TEST_AGENT_KEY is not set") {
		t.Errorf("an unset credential: %v", err)
	}
}

// fmtAll prints v in every fmt form a log line might use.
func fmtAll(v any) string {
	return strings.Join([]string{fmt.Sprintf("%v", v), fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v), fmt.Sprintf("%s", v), fmt.Sprintf("%q", v), fmt.Sprintf("%x", v)}, " ")
}

// A server that stops mid-session ends its sessions: the client's next
// Recv says the agent went away, and Serve returns once every session's
// handler has.
func TestAStoppedServerEndsItsSessions(t *testing.T) {
	for _, protocol := range Protocols() {
		t.Run(protocol, func(t *testing.T) {
			h, err := NewHandler(protocol, func() (Agent, error) { return &scripted{sayAt: -1}, nil }, ServerOptions{Rate: testRate})
			if err != nil {
				t.Fatal(err)
			}
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, stop := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- Serve(ctx, l, h) }()
			s := dial(t, protocol, "ws://"+l.Addr().String())
			defer s.Close()
			stop()
			if err := <-served; err != nil {
				t.Errorf("Serve: %v", err)
			}
			err = openAndReceiveOn(s)
			if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "agent at ws://"+l.Addr().String()) {
				t.Errorf("after the server stopped: %v, want a protocol error naming the agent", err)
			}
		})
	}
}

// openAndReceiveOn sends silence and receives on s until it fails.
func openAndReceiveOn(s Session) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() {
		silence := make([]float32, FrameSamples)
		for s.Send(ctx, silence) == nil {
		}
	}()
	for {
		if _, err := s.Recv(ctx); err != nil {
			return err
		}
	}
}

// Sessions leave nothing running: after many sessions over both
// protocols, closed by the client or failed by the agent, the goroutines
// of the clients and of the server are gone.
func TestSessionsLeaveNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, protocol := range Protocols() {
		h, err := NewHandler(protocol, func() (Agent, error) {
			return &scripted{sayAt: 2, utt: constant(0.25, 3*FrameSamples)}, nil
		}, ServerOptions{Rate: testRate})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		url := "ws" + strings.TrimPrefix(srv.URL, "http")
		for range 5 {
			run(t, dial(t, protocol, url), 5, level(0, 0, 0), nil)
		}
		gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c, err := websocket.Accept(w, r, nil); err == nil {
				c.CloseNow() // an agent that closes at once
			}
		}))
		openAndReceive(protocol, "ws"+strings.TrimPrefix(gone.URL, "http"))
		gone.Close()
		srv.Close()
	}
	deadline := time.Now().Add(time.Minute)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before the sessions, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// hangs is an agent that stops in its tenth frame until released, as an
// agent process that hangs: its server reads nothing more.
type hangs struct {
	k       int
	release <-chan struct{}
}

func (a *hangs) Hear(in, own []float32) (Decision, error) {
	if a.k++; a.k == 10 {
		<-a.release
	}
	return Decision{}, nil
}

// An agent that hangs ends its session with ErrStopped over every
// protocol, however much of the input the sockets' buffers take: a short
// session whose every frame is accepted still fails when it is confirmed,
// since the hung agent answers no ping.
func TestAHungAgentEndsItsSessionWithErrStopped(t *testing.T) {
	for _, protocol := range Protocols() {
		t.Run(protocol, func(t *testing.T) {
			release := make(chan struct{})
			h, err := NewHandler(protocol, func() (Agent, error) { return &hangs{release: release}, nil }, ServerOptions{Rate: testRate})
			if err != nil {
				t.Fatal(err)
			}
			url := serveHandler(t, h)
			t.Cleanup(func() { close(release) }) // before the server closes: its handler is blocked in the agent
			s := dial(t, protocol, url)
			defer s.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			go func() {
				for {
					if _, err := s.Recv(ctx); err != nil {
						return
					}
				}
			}()
			silence := make([]float32, FrameSamples)
			for k := 0; k < 25 && err == nil; k++ { // half a second: what any socket buffer holds
				err = s.Send(ctx, silence)
			}
			if err == nil {
				err = s.Confirm(ctx)
			}
			if !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), protocol+" agent at "+url) {
				t.Fatalf("error %v, want ErrStopped naming the %s agent at %s", err, protocol, url)
			}
			t.Log(err)
		})
	}
}
