package detect

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/floorbench/floorbench/internal/score"
)

// scriptedEvent is one event a fake endpoint sends once it has received
// at audio ms of a channel: its type and its time stamp.
type scriptedEvent struct {
	at   int64
	typ  string
	ms   int64
	omit bool // send it without its time stamp
}

// fakeRealtime is an OpenAI-Realtime-compatible endpoint on 127.0.0.1 whose
// turn detection is a script per speaker. A connection's speaker is told
// by its audio: speaker k's channel is the constant 0.1·k.
type fakeRealtime struct {
	url     string
	scripts map[int][]scriptedEvent
	// fault, when set, is what the endpoint does instead of answering:
	// "refuse" the session, "drop" the connection after the first
	// append, send "garbage", an "error" event or an "early clear".
	fault string

	mu            sync.Mutex
	connections   int
	messages      int
	turnDetection []json.RawMessage
	auth          []string
}

func newFakeRealtime(t *testing.T, scripts map[int][]scriptedEvent) *fakeRealtime {
	t.Helper()
	f := &fakeRealtime{scripts: scripts}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.url = "ws" + strings.TrimPrefix(srv.URL, "http") + "/v1/realtime"
	return f
}

func (f *fakeRealtime) counts() (connections, messages int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.connections, f.messages
}

func (f *fakeRealtime) serve(w http.ResponseWriter, r *http.Request) {
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer conn.CloseNow()
	conn.SetReadLimit(8 << 20)
	f.mu.Lock()
	f.connections++
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	ctx := r.Context()
	send := func(v any) bool {
		data, _ := json.Marshal(v)
		return conn.Write(ctx, websocket.MessageText, data) == nil
	}
	if f.fault == "refuse" {
		send(map[string]any{"type": "error", "error": map[string]string{"code": "invalid_api_key", "message": "no such key"}})
		conn.Close(websocket.StatusPolicyViolation, "refused")
		return
	}
	send(map[string]any{"type": "session.created", "session": map[string]any{"type": "realtime"}})
	var samples24 int64
	speaker := 0
	var script []scriptedEvent
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			return
		}
		f.mu.Lock()
		f.messages++
		f.mu.Unlock()
		var e struct {
			Type    string `json:"type"`
			Audio   string `json:"audio"`
			Session struct {
				Audio struct {
					Input struct {
						TurnDetection json.RawMessage `json:"turn_detection"`
					} `json:"input"`
				} `json:"audio"`
			} `json:"session"`
		}
		if json.Unmarshal(data, &e) != nil {
			return
		}
		switch e.Type {
		case "session.update":
			f.mu.Lock()
			f.turnDetection = append(f.turnDetection, e.Session.Audio.Input.TurnDetection)
			f.mu.Unlock()
			send(map[string]any{"type": "session.updated", "session": map[string]any{"type": "realtime"}})
		case "input_audio_buffer.append":
			raw, _ := base64.StdEncoding.DecodeString(e.Audio)
			if speaker == 0 {
				speaker = speakerOf(raw)
				script = f.scripts[speaker]
			}
			samples24 += int64(len(raw) / 2)
			switch f.fault {
			case "drop":
				return
			case "garbage":
				conn.Write(ctx, websocket.MessageText, []byte("not json"))
				continue
			case "error":
				send(map[string]any{"type": "error", "error": map[string]string{"code": "rate_limit_exceeded", "message": "slow down"}})
				continue
			case "early clear":
				send(map[string]any{"type": "input_audio_buffer.cleared"})
				continue
			}
			for len(script) > 0 && samples24*1000/24000 >= script[0].at {
				ev := map[string]any{"type": script[0].typ}
				if !script[0].omit {
					field := "audio_start_ms"
					if strings.HasSuffix(script[0].typ, "speech_stopped") {
						field = "audio_end_ms"
					}
					ev[field] = script[0].ms
				}
				send(ev)
				script = script[1:]
			}
		case "input_audio_buffer.clear":
			send(map[string]any{"type": "input_audio_buffer.cleared"})
		}
	}
}

// speakerOf reads the speaker from the loudest sample of an append.
func speakerOf(pcm []byte) int {
	peak := 0.0
	for i := 0; i+1 < len(pcm); i += 2 {
		peak = max(peak, math.Abs(float64(int16(binary.LittleEndian.Uint16(pcm[i:])))/32768))
	}
	return int(math.Round(peak * 10))
}

// memAnswers is an AnswerCache in memory.
type memAnswers struct {
	mu   sync.Mutex
	data map[string][]byte
}

func (m *memAnswers) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.data[key]
	return d, ok, nil
}

func (m *memAnswers) Put(_ context.Context, key string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.data == nil {
		m.data = map[string][]byte{}
	}
	m.data[key] = data
	return nil
}

// dcConversation is a conversation of the given seconds whose speaker k
// says the constant 0.1·k throughout (the fake endpoint tells the
// channels apart by it).
func dcConversation(speakers int, seconds float64) *Conversation {
	c := &Conversation{ID: "c1", SampleRate: SampleRate, Duration: seconds}
	for k := 1; k <= speakers; k++ {
		ch := make([]float32, samplesIn(seconds))
		for i := range ch {
			ch[i] = float32(k) / 10
		}
		c.Channels = append(c.Channels, ch)
	}
	return c
}

// realtimeVADSystem is a realtime-vad system on url with params set.
func realtimeVADSystem(t *testing.T, url string, params ...string) *System {
	t.Helper()
	s, err := Builtin(RealtimeVADFamily)
	if err != nil {
		t.Fatal(err)
	}
	params = append([]string{"url", url, "rate", "50"}, params...)
	for i := 0; i < len(params); i += 2 {
		if err := s.SetParam(params[i], params[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// commits are the predictions of every speaker's track at θ 0.5, with a
// refractory of one frame: every pulse.
func commits(tracks [][]float64, fps float64) [][]float64 {
	var out [][]float64
	for _, tr := range tracks {
		out = append(out, score.CommitTimes(tr, fps, 0.5, 0))
	}
	return out
}

// twoSpeakerScript: speaker 1 talks over [120, 2030] and [5000, 6410] ms
// by its endpoint, speaker 2 over [1500, 3333] and from 7000 ms; each
// event comes 300 to 400 ms of audio after its time stamp.
var twoSpeakerScript = map[int][]scriptedEvent{
	1: {{at: 500, typ: "input_audio_buffer.speech_started", ms: 120}, {at: 2100, typ: "input_audio_buffer.speech_stopped", ms: 2030},
		{at: 5400, typ: "input_audio_buffer.speech_started", ms: 5000}, {at: 6500, typ: "input_audio_buffer.speech_stopped", ms: 6410}},
	2: {{at: 1900, typ: "input_audio_buffer.speech_started", ms: 1500}, {at: 3400, typ: "input_audio_buffer.speech_stopped", ms: 3333},
		{at: 7400, typ: "input_audio_buffer.speech_started", ms: 7000}},
}

// A speech_stopped is an EOT of its speaker at audio_end_ms and a
// speech_started an INT at audio_start_ms plus the prefix padding, each
// committed at the end of the frame it falls in; under int_rule overlap
// only the onset while the other speaker's endpoint reports speech
// remains. The endpoint is asked for server_vad with its parameters and
// no responses, and a second run reads the stored answers and sends
// nothing.
func TestRealtimeVADTurnsSpeechEventsIntoPredictions(t *testing.T) {
	f := newFakeRealtime(t, twoSpeakerScript)
	cache := &memAnswers{}
	rt := Runtime{Answers: cache}
	for _, tc := range []struct {
		rule string
		int  [][]float64
	}{
		{intOnset, [][]float64{{0.42, 5.30}, {1.80, 7.30}}},
		{intOverlap, [][]float64{nil, {1.80}}},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			s := realtimeVADSystem(t, f.url, "int_rule", tc.rule)
			scores := detectWith(t, s, rt, dcConversation(2, 8))
			wantEOT := [][]float64{{2.03, 6.41}, {3.34}}
			if got := commits(scores.EOT, scores.FrameRate); !timesEqual(got, wantEOT) {
				t.Errorf("EOT predictions %v, want %v", got, wantEOT)
			}
			if got := commits(scores.INT, scores.FrameRate); !timesEqual(got, tc.int) {
				t.Errorf("INT predictions %v, want %v", got, tc.int)
			}
		})
	}
	connections, messages := f.counts()
	if connections != 2 {
		t.Errorf("%d connections for two channels and two INT rules; the second rule should read the stored answers", connections)
	}
	for _, td := range f.turnDetection {
		var got map[string]any
		if err := json.Unmarshal(td, &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"type": "server_vad", "threshold": 0.5, "prefix_padding_ms": 300.0, "silence_duration_ms": 500.0, "create_response": false}
		if !mapsEqual(got, want) {
			t.Errorf("turn_detection %s, want %v", td, want)
		}
	}

	again := realtimeVADSystem(t, f.url)
	detectWith(t, again, rt, dcConversation(2, 8))
	if c, m := f.counts(); c != connections || m != messages {
		t.Errorf("a rerun made %d connections and sent %d messages; want none", c-connections, m-messages)
	}

	// The stored answers hold when each event arrived: never before the
	// audio the endpoint needed to send it. timing arrival reads them.
	at := map[int64]int64{}
	for _, script := range twoSpeakerScript {
		for _, e := range script {
			at[e.ms] = e.at
		}
	}
	for key, data := range cache.data {
		a, err := parseAnswer(data, 400)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		for _, e := range a.Events {
			if e.Arrived < at[e.Ms]-1 {
				t.Errorf("%s: %s of %d ms arrived at %d ms, before the %d ms of audio the endpoint sent it after", key, e.Kind, e.Ms, e.Arrived, at[e.Ms])
			}
		}
	}
	detectWith(t, realtimeVADSystem(t, f.url, "timing", "arrival"), rt, dcConversation(2, 8))
	if c, _ := f.counts(); c != connections {
		t.Errorf("timing arrival connected %d times; the stored answers hold the arrivals", c-connections)
	}
}

func detectWith(t *testing.T, s *System, rt Runtime, c *Conversation) *Scores {
	t.Helper()
	d, err := s.Open(rt)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	scores, err := d.Detect(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return scores
}

func timesEqual(got, want [][]float64) bool {
	return slices.EqualFunc(got, want, func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Abs(x-y) < 1e-9 })
	})
}

func mapsEqual(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Semantic VAD is asked for with its eagerness; its onsets commit at
// audio_start_ms, as the API documents no padding for it.
func TestRealtimeVADSemanticAsksForEagerness(t *testing.T) {
	f := newFakeRealtime(t, twoSpeakerScript)
	s := realtimeVADSystem(t, f.url, "turn_detection", "semantic_vad", "eagerness", "high")
	scores := detectWith(t, s, Runtime{}, dcConversation(2, 8))
	if got, want := commits(scores.INT, scores.FrameRate), [][]float64{{0.12, 5.00}, {1.50, 7.00}}; !timesEqual(got, want) {
		t.Errorf("INT predictions %v, want %v", got, want)
	}
	want := map[string]any{"type": "semantic_vad", "eagerness": "high", "create_response": false}
	for _, td := range f.turnDetection {
		var got map[string]any
		if err := json.Unmarshal(td, &got); err != nil || !mapsEqual(got, want) {
			t.Errorf("turn_detection %s, want %v", td, want)
		}
	}
}

// An endpoint that refuses, drops the connection, sends what is not an
// event, reports an error, sends an event without its time stamp or one
// past the audio fails the conversation with one line that names the
// endpoint and never the credential.
func TestRealtimeVADFailsClearly(t *testing.T) {
	const secret = "sk-test-not-printed"
	t.Setenv("FAKE_REALTIME_KEY", secret)
	for _, tc := range []struct {
		name, fault string
		script      []scriptedEvent
		want        string
	}{
		{"refuse", "refuse", nil, "refused the session: invalid_api_key"},
		{"drop", "drop", nil, "dropped the connection"},
		{"garbage", "garbage", nil, "not a JSON event"},
		{"error", "error", nil, "reported an error: rate_limit_exceeded"},
		{"no time stamp", "", []scriptedEvent{{at: 100, typ: "input_audio_buffer.speech_started", omit: true}}, "without its time stamp"},
		{"past the audio", "", []scriptedEvent{{at: 100, typ: "input_audio_buffer.speech_stopped", ms: 9000}}, "outside the 2000 ms of audio sent"},
		{"early clear", "early clear", nil, "cleared its input before the last frame was sent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeRealtime(t, map[int][]scriptedEvent{1: tc.script})
			f.fault = tc.fault
			s := realtimeVADSystem(t, f.url, "credential_env", "FAKE_REALTIME_KEY")
			d, err := s.Open(Runtime{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = d.Detect(context.Background(), dcConversation(1, 2))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			host := strings.TrimPrefix(strings.TrimSuffix(f.url, "/v1/realtime"), "ws://")
			if !strings.Contains(msg, tc.want) || !strings.Contains(msg, host) || strings.Contains(msg, secret) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line with %q naming %s, without the credential", msg, tc.want, host)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.auth) == 0 || f.auth[0] != "Bearer "+secret {
				t.Errorf("the endpoint got Authorization %q, want the credential as a bearer token", f.auth)
			}
		})
	}
}

// The credential's variable and header say how a system runs and are
// not in its hash; the endpoint and its parameters are.
func TestRealtimeVADHashCoversTheEndpointNotTheCredential(t *testing.T) {
	rt := Runtime{}
	base := hashOf(t, realtimeVADSystem(t, "wss://api.example/v1/realtime"), rt)
	if h := hashOf(t, realtimeVADSystem(t, "wss://api.example/v1/realtime", "credential_env", "OTHER_KEY", "auth_header", "api-key"), rt); h != base {
		t.Error("changing credential_env and auth_header changed the hash")
	}
	for _, p := range [][]string{{"threshold", "0.6"}, {"model", "gpt-realtime-mini"}, {"int_rule", "overlap"}, {"silence_duration_ms", "800"}} {
		if h := hashOf(t, realtimeVADSystem(t, "wss://api.example/v1/realtime", p...), rt); h == base {
			t.Errorf("changing %s left the hash alone", p[0])
		}
	}
	for _, bad := range []string{"https://api.example/v1/realtime", "wss://user:pw@api.example/", "wss://api.example/?api-key=x"} {
		s := realtimeVADSystem(t, bad)
		if _, err := s.Hash(rt); err == nil || strings.Contains(err.Error(), "api.example") {
			t.Errorf("url %s: got %v, want an error that does not quote it", bad, err)
		}
	}
}

// A stored answer is outside input: whatever its bytes, parseAnswer
// returns an error or an answer whose every event is a speech event inside
// the audio, and scores of it never panic.
func FuzzParseAnswer(f *testing.F) {
	f.Add([]byte(`{"events":[{"kind":"speech_started","ms":120},{"kind":"speech_stopped","ms":2030}]}`), 200)
	f.Add([]byte(`{"events":[{"kind":"barge_in","ms":1}]}`), 1)
	f.Add([]byte(`{"events":null}`), 0)
	f.Fuzz(func(t *testing.T, data []byte, frames int) {
		frames = min(max(frames, 0), 1000)
		a, err := parseAnswer(data, frames)
		if err != nil {
			return
		}
		for _, e := range a.Events {
			if e.Ms < 0 || e.Ms > int64(frames)*20+1 {
				t.Fatalf("accepted %+v for %d frames", e, frames)
			}
		}
		d := &realtimeVAD{fps: 100, intRule: intOverlap, onsetMs: 300}
		d.scores([]realtimeAnswer{a, a}, frames*2)
	})
}
