package proto

import (
	"context"
	"encoding/base64"
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

	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/testenv"
)

// faultServer serves one misbehaving agent: behave runs on each accepted
// connection.
func faultServer(t *testing.T, behave func(ctx context.Context, c *websocket.Conn)) string {
	t.Helper()
	return serveHandler(t, faultHandler(behave))
}

// faultHandler is the handler of a misbehaving agent: behave runs on each
// accepted connection.
func faultHandler(behave func(ctx context.Context, c *websocket.Conn)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		behave(r.Context(), c)
	})
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
	return openAndReceiveAt(Endpoint{Protocol: protocol, URL: url})
}

// openAndReceiveAt is openAndReceive at ep, at the test rate with a
// handshake timeout of 1 s.
func openAndReceiveAt(ep Endpoint) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ep.Rate, ep.HandshakeTimeout = testRate, time.Second
	s, err := Dial(ctx, ep)
	if err != nil {
		return err
	}
	defer s.Close()
	return openAndReceiveOn(s)
}

// Each way an agent can misbehave gives one clear error, never a hang:
// it closes at once, never answers, sends malformed messages, or declares
// a sample rate the protocol does not carry. Each agent is served on a
// Pipe in a synctest bubble, so the handshake's 1 s is of the bubble's
// clock, which no load can use up (on sockets and the wall clock, one run
// in twenty at load 25 timed out before it saw the close).
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
		{"wrong type", RealtimeName, realtimeUpdatedThen(rtSession{}, send(websocket.MessageText, `{"type":"error","error":{"code":5}}`)), "error.code: want a string, not a number"},
		{"wrong type", DuplexName, duplexHelloThen(duplexHello(""), send(websocket.MessageText, `{"type":7}`)), "type: want a string, not a number"},
		{"malformed audio", RealtimeName, realtimeUpdatedThen(rtSession{}, send(websocket.MessageText, `{"type":"response.audio.delta","delta":"%%%"}`)), "response.audio.delta delta is not base64"},
		{"audio as binary", RealtimeName, realtimeUpdatedThen(rtSession{}, send(websocket.MessageBinary, "abcd")), "realtime events are JSON text"},
		{"wrong sample rate", DuplexName, duplexHelloThen(wrongRate, readUntilGone), "the hello declares sample_rate 24000; this protocol carries 16000"},
		{"wrong sample rate", RealtimeName, realtimeUpdatedThen(rtSession{Type: "realtime", Audio: &rtAudio{Output: &rtAudioSide{Format: &rtFormat{Type: "audio/pcm", Rate: 16000}}}}, readUntilGone),
			"declares audio.output.format rate 16000; floorbench speaks audio/pcm at 24000 Hz"},
		{"wrong format", RealtimeName, realtimeUpdatedThen(rtSession{InputAudioFormat: "g711_ulaw"}, readUntilGone), `declares input_audio_format "g711_ulaw"`},
	} {
		t.Run(c.protocol+" "+c.name, func(t *testing.T) {
			testenv.Synctest(t, func(t *testing.T) {
				ep, stop := ServePipe(faultHandler(c.behave), c.protocol)
				defer stop()
				err := openAndReceiveAt(ep)
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.protocol+" agent at "+ep.URL) {
					t.Fatalf("error %v, want one naming the %s agent at %s and saying %q", err, c.protocol, ep.URL, c.want)
				}
				t.Log(err)
				if strings.Count(err.Error(), " agent at ") != 1 {
					t.Errorf("the error names the agent more than once: %v", err)
				}
			})
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
	said, err := refused(t, url, msgs)
	code := ""
	for _, m := range said {
		if m.typ != websocket.MessageText {
			continue
		}
		var e struct {
			Type  string
			Code  string
			Error *rtError
		}
		json.Unmarshal(m.data, &e)
		switch {
		case e.Type == "error" && e.Error != nil:
			code = e.Error.Code
		case e.Type == "error":
			code = e.Code
		}
	}
	return code, websocket.CloseStatus(err) > 0
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

// frozenRate is a playback rate at which session time stands still for
// the length of a test: no input slot comes, nothing is played, and every
// event an agent sends falls in session second 0, so what a flood does is
// the same at any machine load.
const frozenRate = 1e-6

// updatedThen is a realtime agent that opens the session and then does
// then.
func updatedThen(then func(ctx context.Context, c *websocket.Conn)) func(context.Context, *websocket.Conn) {
	return func(ctx context.Context, c *websocket.Conn) {
		writeJSON(ctx, c, rtEvent{Type: "session.created", Session: &rtSession{}})
		c.Read(ctx)
		writeJSON(ctx, c, rtEvent{Type: "session.updated", Session: &rtSession{}})
		then(ctx, c)
	}
}

// helloThen is a duplex agent that answers the hello and then does then.
func helloThen(then func(ctx context.Context, c *websocket.Conn)) func(context.Context, *websocket.Conn) {
	return func(ctx context.Context, c *websocket.Conn) {
		c.Read(ctx)
		writeJSON(ctx, c, duplexHello("fault"))
		then(ctx, c)
	}
}

// receiveUntil dials ep and receives until an event of kind (nil) or the
// session's error; it sends nothing.
func receiveUntil(ep Endpoint, kind EventKind) ([]Output, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Dial(ctx, ep)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var outs []Output
	for {
		o, err := s.Recv(ctx)
		if err != nil {
			return outs, err
		}
		outs = append(outs, o)
		if o.Event != nil && o.Event.Kind == kind {
			return outs, nil
		}
	}
}

// Every string an agent sends (a close reason, an error's code and
// message, a response's status, a hello's or a session's field) reaches
// errors and events scrubbed: the credential, in any of its obvious
// encodings, appears nowhere.
func TestAnAgentsStringsNeverCarryTheCredential(t *testing.T) {
	const key = "sk-probe-7c1e-credential"
	b64 := base64.StdEncoding.EncodeToString([]byte("Bearer " + key))
	closeWith := func(reason string) func(context.Context, *websocket.Conn) {
		return func(ctx context.Context, c *websocket.Conn) { c.Close(websocket.StatusPolicyViolation, reason) }
	}
	errorEvents := func(code, msg string) func(context.Context, *websocket.Conn) {
		return func(ctx context.Context, c *websocket.Conn) {
			writeJSON(ctx, c, rtEvent{Type: "error", Error: &rtError{Code: code, Message: msg}})
			writeJSON(ctx, c, rtEvent{Type: "response.done", Response: &rtResponse{Status: key}})
			readUntilGone(ctx, c)
		}
	}
	duplexEvents := func(ctx context.Context, c *websocket.Conn) {
		writeJSON(ctx, c, duplexMessage{Type: "error", Code: key, Message: "bad key " + b64})
		writeJSON(ctx, c, duplexMessage{Type: "response_done", Status: key})
		readUntilGone(ctx, c)
	}
	badHello := duplexHello("")
	badHello.Encoding = "x" + key
	for _, c := range []struct {
		name, protocol string
		behave         func(context.Context, *websocket.Conn)
	}{
		{"close reason at the handshake", RealtimeName, closeWith("key " + key)},
		{"close reason at the handshake", DuplexName, closeWith(b64)},
		{"close reason in the session", RealtimeName, updatedThen(closeWith(key))},
		{"close reason in the session", DuplexName, helloThen(closeWith(key))},
		{"error refusing the session", RealtimeName, func(ctx context.Context, c *websocket.Conn) {
			writeJSON(ctx, c, rtEvent{Type: "error", Error: &rtError{Code: key, Message: "Incorrect API key provided: " + key}})
		}},
		{"error refusing the session", DuplexName, func(ctx context.Context, c *websocket.Conn) {
			c.Read(ctx)
			writeJSON(ctx, c, duplexMessage{Type: "error", Code: key, Message: key})
		}},
		{"hello field", DuplexName, func(ctx context.Context, c *websocket.Conn) { c.Read(ctx); writeJSON(ctx, c, badHello) }},
		{"session format", RealtimeName, func(ctx context.Context, c *websocket.Conn) {
			writeJSON(ctx, c, rtEvent{Type: "session.created", Session: &rtSession{}})
			c.Read(ctx)
			writeJSON(ctx, c, rtEvent{Type: "session.updated", Session: &rtSession{InputAudioFormat: key}})
		}},
		{"error events and status", RealtimeName, updatedThen(errorEvents(key, "quota of "+b64))},
		{"error events and status", DuplexName, helloThen(duplexEvents)},
	} {
		t.Run(c.protocol+" "+c.name, func(t *testing.T) {
			url := faultServer(t, c.behave)
			outs, err := receiveUntil(Endpoint{Protocol: c.protocol, URL: url, Credential: key, Rate: frozenRate}, ResponseDone)
			printed := fmt.Sprint(err)
			for _, o := range outs {
				if o.Event != nil {
					printed += fmt.Sprintf(" %+v", *o.Event)
				}
			}
			if strings.Contains(printed, key) || strings.Contains(printed, b64[8:]) || strings.Contains(printed, "probe-7c1e") {
				t.Errorf("the credential is printed: %s", printed)
			}
			if err == nil && len(outs) == 0 {
				t.Errorf("neither an error nor an event")
			}
			t.Log(printed)
		})
	}
	// An HTTP refusal of the handshake: its body and headers are not
	// quoted.
	url := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Echo", key)
		http.Error(w, "Incorrect API key provided: "+key, http.StatusUnauthorized)
	}))
	for _, protocol := range Protocols() {
		_, err := Dial(context.Background(), Endpoint{Protocol: protocol, URL: url, Credential: key, Rate: testRate})
		if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "401") {
			t.Errorf("%s: a 401 echoing the key: %v", protocol, err)
		}
	}
}

// Each bound on what an agent can make the client hold fails the session
// one past it, with one error naming the bound and its value, and lets a
// session at it go on: audio queued ahead of playback, output items in
// flight, a duplex channel ahead of its input, events in a session and in
// one second.
func TestAnAgentPastABoundFailsTheSession(t *testing.T) {
	// delta sends one response.audio.delta of item of n samples at 24 kHz.
	delta := func(ctx context.Context, c *websocket.Conn, item string, n int) {
		writeJSON(ctx, c, rtEvent{Type: "response.audio.delta", ItemID: item, Delta: encodeAudio(constant(0.25, n))})
	}
	marker := map[string]func(context.Context, *websocket.Conn){
		RealtimeName: func(ctx context.Context, c *websocket.Conn) { writeJSON(ctx, c, rtEvent{Type: "response.done"}) },
		DuplexName:   func(ctx context.Context, c *websocket.Conn) { writeJSON(ctx, c, duplexMessage{Type: "response_done"}) },
	}
	for _, c := range []struct {
		name, protocol string
		limit          func(*limits.Limits, int) // sets the bound to b
		flood          func(ctx context.Context, c *websocket.Conn, n int)
		b              int    // the bound: a flood of b passes, of b+1 fails
		want           string // what the error says past it
	}{
		{"queued audio", RealtimeName, func(l *limits.Limits, b int) { l.AgentQueueS = float64(b) },
			func(ctx context.Context, c *websocket.Conn, n int) {
				for range n {
					delta(ctx, c, "item_1", realtimeRate) // a second each
				}
			}, 2, "is over the limit of 2 s (raise limits.agent_queue_s"},
		{"items in flight", RealtimeName, func(l *limits.Limits, b int) { l.AgentItems = b },
			func(ctx context.Context, c *websocket.Conn, n int) {
				for i := range n {
					delta(ctx, c, fmt.Sprintf("item_%d", i), 24)
				}
			}, 3, "the agent's output items in flight: 4 is over the limit of 3 (raise limits.agent_items"},
		{"frames ahead", DuplexName, func(l *limits.Limits, b int) { l.AgentFramesAhead = b },
			func(ctx context.Context, c *websocket.Conn, n int) {
				for range n {
					c.Write(ctx, websocket.MessageBinary, make([]byte, frameBytes))
				}
			}, 5, "the agent's channel ahead of the input: 6 frames is over the limit of 5 frames (raise limits.agent_frames_ahead"},
		{"events in a session", DuplexName, func(l *limits.Limits, b int) { l.AgentEvents = b },
			func(ctx context.Context, c *websocket.Conn, n int) {
				for range n - 1 { // and the marker
					writeJSON(ctx, c, duplexMessage{Type: "speech_started"})
				}
			}, 7, "the agent's events in one session: 8 is over the limit of 7 (raise limits.agent_events"},
		{"events in a second", RealtimeName, func(l *limits.Limits, b int) { l.AgentEventsPerS = b },
			func(ctx context.Context, c *websocket.Conn, n int) {
				for range n - 1 {
					writeJSON(ctx, c, rtEvent{Type: "input_audio_buffer.speech_stopped"})
				}
			}, 4, "the agent's events in one second: 5 is over the limit of 4 (raise limits.agent_events_per_s"},
	} {
		for _, n := range []int{c.b, c.b + 1} {
			t.Run(fmt.Sprintf("%s %s %d", c.protocol, c.name, n), func(t *testing.T) {
				then := func(ctx context.Context, conn *websocket.Conn) {
					c.flood(ctx, conn, n)
					marker[c.protocol](ctx, conn)
					readUntilGone(ctx, conn)
				}
				behave := helloThen(then)
				if c.protocol == RealtimeName {
					behave = updatedThen(then)
				}
				lim := limits.Default()
				c.limit(&lim, c.b)
				url := faultServer(t, behave)
				_, err := receiveUntil(Endpoint{Protocol: c.protocol, URL: url, Rate: frozenRate, Limits: lim}, ResponseDone)
				switch {
				case n == c.b && err != nil:
					t.Errorf("at the bound: %v", err)
				case n > c.b && (err == nil || !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
					t.Errorf("past the bound: %v, want one line saying %q", err, c.want)
				}
			})
		}
	}
}

// A flooding agent makes the client hold a bounded amount, whatever it
// sends: realtime deltas of 7 MB each, output items never done, duplex
// frames far ahead of their slots. Each session ends at its bound, having
// allocated (TotalAlloc, which bounds what was ever held at once, the
// fault server's own messages included) less than 300 MB.
func TestAFloodingAgentHoldsBoundedMemory(t *testing.T) {
	big := encodeAudio(constant(0.25, 5<<19)) // 5 MB of PCM16, 7 MB of base64: about the read limit's size
	bigDelta, _ := json.Marshal(rtEvent{Type: "response.audio.delta", ItemID: "item_1", Delta: big})
	forever := func(ctx context.Context, c *websocket.Conn, msg func(i int) message) {
		for i := 0; ; i++ {
			m := msg(i)
			if c.Write(ctx, m.typ, m.data) != nil {
				return
			}
		}
	}
	for _, c := range []struct {
		name, protocol, want string
		behave               func(context.Context, *websocket.Conn)
	}{
		{"deltas", RealtimeName, "limits.agent_queue_s", updatedThen(func(ctx context.Context, c *websocket.Conn) {
			forever(ctx, c, func(int) message { return message{websocket.MessageText, bigDelta} })
		})},
		{"items never done", RealtimeName, "limits.agent_items", updatedThen(func(ctx context.Context, c *websocket.Conn) {
			forever(ctx, c, func(i int) message {
				return encodeRealtime(rtEvent{Type: "response.audio.delta", ItemID: fmt.Sprintf("item_%d", i), Delta: "AAAAAAAA"})
			})
		})},
		{"frames ahead", DuplexName, "limits.agent_frames_ahead", helloThen(func(ctx context.Context, c *websocket.Conn) {
			frame := make([]byte, frameBytes)
			forever(ctx, c, func(int) message { return message{websocket.MessageBinary, frame} })
		})},
		{"events", DuplexName, "limits.agent_events_per_s", helloThen(func(ctx context.Context, c *websocket.Conn) {
			forever(ctx, c, func(int) message { return encodeDuplex(duplexMessage{Type: "speech_started"}) })
		})},
	} {
		t.Run(c.protocol+" "+c.name, func(t *testing.T) {
			url := faultServer(t, c.behave)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := receiveUntil(Endpoint{Protocol: c.protocol, URL: url, Rate: frozenRate}, "never")
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("the flood ended with %v, want the bound %s", err, c.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 300<<20 {
				t.Errorf("the session allocated %d MB, want under 300 MB", grew>>20)
			}
		})
	}
}

// A handshake answered with a redirect is not followed: the origin it
// points to receives nothing, not the credential.
func TestARedirectedHandshakeIsNotFollowed(t *testing.T) {
	reached := make(chan string, 4)
	other := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- r.Header.Get("Authorization")
	}))
	url := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(other, "ws://", "http://", 1)+"/", http.StatusTemporaryRedirect)
	}))
	for _, protocol := range Protocols() {
		_, err := Dial(context.Background(), Endpoint{Protocol: protocol, URL: url, Credential: "sk-redirect-secret", Rate: testRate})
		if err == nil || !strings.Contains(err.Error(), "307") {
			t.Errorf("%s: %v, want the 307 refused", protocol, err)
		}
	}
	select {
	case auth := <-reached:
		t.Errorf("the other origin received a request (Authorization %q)", auth)
	default:
	}
}

// A barge-in on an item whose audio is all in (done) keeps nothing of it:
// barge-ins over a long session do not count against agent_items, only
// items whose audio is still coming do.
func TestCutItemsThatAreDoneAreNotHeld(t *testing.T) {
	const bound = 3
	url := faultServer(t, updatedThen(func(ctx context.Context, c *websocket.Conn) {
		for i := range bound + 2 {
			item := fmt.Sprintf("item_%d", i)
			writeJSON(ctx, c, rtEvent{Type: "response.audio.delta", ItemID: item, Delta: encodeAudio(constant(0.25, 2400))})
			writeJSON(ctx, c, rtEvent{Type: "response.audio.done", ItemID: item})
			writeJSON(ctx, c, rtEvent{Type: "input_audio_buffer.speech_started"})
		}
		writeJSON(ctx, c, rtEvent{Type: "response.done"})
		readUntilGone(ctx, c)
	}))
	lim := limits.Default()
	lim.AgentItems = bound
	outs, err := receiveUntil(Endpoint{Protocol: RealtimeName, URL: url, Rate: frozenRate, Limits: lim}, ResponseDone)
	barges := 0
	for _, o := range outs {
		if o.Event != nil && o.Event.Kind == BargeIn {
			barges++
		}
	}
	if err != nil || barges != bound+2 {
		t.Errorf("%d barge-ins, %v; want %d and no error", barges, err, bound+2)
	}
}
