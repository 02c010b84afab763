package proto

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// liveAPI is a Live API server written from Google's public reference
// (ai.google.dev/api/live), not from floorbench's server: generic JSON
// both ways, its messages in binary frames as the Live API sends them.
// It checks the key, the setup and every realtimeInput, answers setup
// with setupComplete, and after input frame talkAt sends a model turn of
// eight seconds of 24 kHz audio in two pieces and generationComplete; after
// input frame cutAt, interrupted and turnComplete. What it saw wrong
// goes to problems.
type liveAPI struct {
	key, keyIn   string // the key and where it must come: "header" or "query"
	talkAt       int
	cutAt        int
	mu           sync.Mutex
	problems     []string
	inputFrames  int
	setupSeen    map[string]any
	closedReason string // when set, the server closes with this reason after setup
}

func (f *liveAPI) problem(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.problems = append(f.problems, fmt.Sprintf(format, args...))
}

func (f *liveAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	inHeader, inQuery := r.Header.Get("x-goog-api-key") == f.key, r.URL.Query().Get("key") == f.key
	if !inHeader && !inQuery {
		// Not the test's client: on a shared machine another process
		// may dial a port it believes free.
		http.NotFound(w, r)
		return
	}
	switch f.keyIn {
	case "header":
		if inQuery || r.URL.Query().Has("key") {
			f.problem("the key is not in x-goog-api-key alone")
		}
	case "query":
		if inHeader || r.Header.Get("Authorization") != "" {
			f.problem("the key is not in the key query parameter alone")
		}
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx := r.Context()
	send := func(v string) { c.Write(ctx, websocket.MessageBinary, []byte(v)) }
	var first map[string]map[string]any
	if _, data, err := c.Read(ctx); err != nil || json.Unmarshal(data, &first) != nil || len(first) != 1 || first["setup"] == nil {
		f.problem("the first message is not {\"setup\": {...}}")
		return
	}
	f.mu.Lock()
	f.setupSeen = first["setup"]
	f.mu.Unlock()
	if f.closedReason != "" {
		c.Close(websocket.StatusPolicyViolation, f.closedReason)
		return
	}
	send(`{"setupComplete": {}}`)
	for k := 0; ; k++ {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		var m struct {
			RealtimeInput struct {
				Audio struct{ MimeType, Data string }
			}
		}
		if json.Unmarshal(data, &m) != nil || m.RealtimeInput.Audio.MimeType != "audio/pcm;rate=16000" {
			f.problem("input message %d is not realtimeInput audio at 16 kHz: %.80s", k, data)
			return
		}
		if raw, _ := base64.StdEncoding.DecodeString(m.RealtimeInput.Audio.Data); len(raw) != 640 {
			f.problem("input message %d carries %d bytes, want 20 ms of PCM16", k, len(raw))
		}
		f.mu.Lock()
		f.inputFrames++
		f.mu.Unlock()
		switch k {
		case f.talkAt:
			half := pcm16LE(0.25, 4*geminiOutRate)
			for range 2 {
				send(`{"serverContent": {"modelTurn": {"role": "model", "parts": [{"inlineData": {"mimeType": "audio/pcm;rate=24000", "data": "` + half + `"}}]}}}`)
			}
			send(`{"serverContent": {"generationComplete": true}}`)
			send(`{"serverContent": {"inputTranscription": {"text": "Hi there"}}}`)
			send(`{"serverContent": {"outputTranscription": {"text": "Hello, how can I help?"}}}`)
			send(`{"usageMetadata": {"totalTokenCount": 12}}`)
		case f.cutAt:
			send(`{"serverContent": {"interrupted": true}}`)
			send(`{"serverContent": {"turnComplete": true}}`)
		}
	}
}

// pcm16LE is n samples of v as base64 PCM16 little-endian.
func pcm16LE(v float32, n int) string {
	b := make([]byte, 2*n)
	for i := range n {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(v*32768)))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// The gemini-live client speaks the Live API as its reference describes
// it: the key in x-goog-api-key, setup with the model, audio responses
// and a transcript of them, then 20 ms of 16 kHz PCM16 per realtimeInput
// (transcripts are reported with their names); the model's
// 24 kHz audio is heard from its arrival, an interruption stops it at
// once (barge_in with what was heard), and turnComplete ends the
// response as interrupted. The turn is long (8 s) so that a loaded
// machine delaying the interruption still finds it playing.
func TestGeminiLiveClientSpeaksTheLiveAPI(t *testing.T) {
	const key = "AIzaTestKey-0123456789"
	f := &liveAPI{key: key, keyIn: "header", talkAt: 5, cutAt: 20}
	url := serveHandler(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ep := Endpoint{Protocol: GeminiLiveName, URL: url, Credential: key, Rate: testRate,
		Realtime: RealtimeOptions{Model: "gemini-live-test", Voice: "Puck", Instructions: "Answer briefly."}}
	s, err := Dial(ctx, ep)
	if err != nil {
		t.Fatal(err)
	}
	// Until what was played up to the cut has been heard: the response
	// ends with the interruption.
	rec := run(t, s, 40, level(0, 0, 0), responseHeard(0))
	heard := count(rec.heard, 0.25)
	// The turn plays from its arrival after input frame 5 and is cut when
	// the interruption after frame 20 arrives: part of it is heard.
	if heard == 0 || heard >= 8*SampleRate {
		t.Errorf("heard %d samples of an 8 s turn interrupted about 0.3 s into it", heard)
	}
	if want := []EventKind{ResponseStarted, InputTranscript, Transcript, BargeIn, ResponseDone}; !slices.Equal(rec.kinds(), want) {
		t.Errorf("events %v, want %v", rec.kinds(), want)
	}
	b := rec.event(t, BargeIn)
	if d := int(b.PlayedMs)*SampleRate/1000 - heard; d < -SampleRate/1000 || d > SampleRate/1000 {
		t.Errorf("barge_in says %d ms played, but %d samples were heard", b.PlayedMs, heard)
	}
	if e := rec.event(t, ResponseDone); e.Status != "interrupted" {
		t.Errorf("response_done status %q, want interrupted", e.Status)
	}
	if e := rec.event(t, Transcript); e.Name != "serverContent.outputTranscription" || e.Text != "Hello, how can I help?" {
		t.Errorf("transcript %+v, want the outputTranscription's text", e)
	}
	if e := rec.event(t, InputTranscript); e.Name != "serverContent.inputTranscription" || e.Text != "Hi there" {
		t.Errorf("input transcript %+v, want the inputTranscription's text", e)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.problems {
		t.Error(p)
	}
	if f.inputFrames < 40 {
		t.Errorf("the server got %d input frames, want at least 40", f.inputFrames)
	}
	setup, _ := json.Marshal(f.setupSeen)
	want := `{"generationConfig":{"responseModalities":["AUDIO"],"speechConfig":{"voiceConfig":{"prebuiltVoiceConfig":{"voiceName":"Puck"}}}},` +
		`"model":"models/gemini-live-test","outputAudioTranscription":{},"systemInstruction":{"parts":[{"text":"Answer briefly."}]}}`
	if string(setup) != want {
		t.Errorf("setup %s, want %s", setup, want)
	}
}

// A key sent as the key query parameter (AuthQuery) goes in the URL and
// nowhere else, and is printed nowhere: not in the error of a server that
// closes quoting the request's URL, nor in a connection error that
// names the URL.
func TestGeminiLiveKeyInTheQueryIsNeverPrinted(t *testing.T) {
	const key = "AIzaQueryKey-9876543210"
	f := &liveAPI{key: key, keyIn: "query", closedReason: "API key not valid: key=" + key}
	url := serveHandler(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ep := Endpoint{Protocol: GeminiLiveName, URL: url + "/ws", Credential: key, AuthQuery: "key", Rate: testRate}
	_, err := Dial(ctx, ep)
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "1008") {
		t.Errorf("a server closing with the key in its reason: %v, want the closing without the key", err)
	}
	f.mu.Lock()
	for _, p := range f.problems {
		t.Error(p)
	}
	f.mu.Unlock()
	l := mustListen()
	gone := "ws://" + l.Addr().String() + "/ws"
	l.Close()
	ep.URL = gone
	_, err = Dial(ctx, ep)
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), gone) {
		t.Errorf("a refused connection: %v, want the URL without the key", err)
	}
}

// The reference server refuses, by closing with a reason as the Live API
// does, a setup it cannot serve and input that is not 16 kHz PCM16.
func TestTheGeminiLiveServerRefusesWhatItCannotServe(t *testing.T) {
	url := serve(t, GeminiLiveName, func() (Agent, error) { return &scripted{sayAt: -1}, nil })
	for _, c := range []struct {
		name string
		msgs []string
		want string
	}{
		{"text responses", []string{`{"setup":{"generationConfig":{"responseModalities":["TEXT"]}}}`}, "AUDIO only"},
		{"turns left to the client", []string{`{"setup":{"realtimeInputConfig":{"automaticActivityDetection":{"disabled":true}}}}`}, "takes its own turns"},
		{"no setup first", []string{`{"realtimeInput":{"audioStreamEnd":true}}`}, "first message must be setup"},
		{"another rate", []string{`{"setup":{}}`, `{"realtimeInput":{"audio":{"mimeType":"audio/pcm;rate=24000","data":""}}}`}, "audio/pcm;rate=16000"},
		{"not JSON", []string{`{"setup":{}}`, `[1`}, "not a JSON object"},
		{"text content", []string{`{"setup":{}}`, `{"clientContent":{"turnComplete":true}}`}, "realtimeInput audio only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var msgs []message
			for _, m := range c.msgs {
				msgs = append(msgs, message{websocket.MessageText, []byte(m)})
			}
			_, err := refused(t, url, msgs)
			var ce websocket.CloseError
			if !strings.Contains(fmt.Sprint(err), c.want) || !errors.As(err, &ce) {
				t.Errorf("closed with %v, want a close reason saying %q", err, c.want)
			}
		})
	}
}

// Whatever a Live API peer sends, parsing it as either side's message,
// checking a setup and reading an audio MIME type never panics; a setup
// that passes asks for audio and leaves turns to the server, and a MIME
// type read as 16 kHz names that rate or none.
func FuzzParseGeminiLive(f *testing.F) {
	for _, seed := range []string{
		`{"setupComplete":{}}`,
		`{"serverContent":{"modelTurn":{"parts":[{"inlineData":{"mimeType":"audio/pcm;rate=24000","data":"AAABAA=="}}]}}}`,
		`{"serverContent":{"interrupted":true}}`, `{"serverContent":{"turnComplete":true}}`, `{"goAway":{"timeLeft":"10s"}}`,
		`{"setup":{"model":"models/m","generationConfig":{"responseModalities":["AUDIO"]},"realtimeInputConfig":{"automaticActivityDetection":{"disabled":true}}}}`,
		`{"realtimeInput":{"audio":{"mimeType":"audio/pcm;rate=16000","data":"AAA="}}}`, `{"realtimeInput":{"mediaChunks":[{"mimeType":"audio/pcm"}]}}`,
		`{"serverContent":{"modelTurn":7}}`, `[]`, `null`, "\x00",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var sm glServerMessage
		if parseGemini(data, &sm) == nil && sm.ServerContent != nil && sm.ServerContent.ModelTurn != nil {
			for _, p := range sm.ServerContent.ModelTurn.Parts {
				if p.InlineData != nil {
					pcmRate(p.InlineData.MimeType, geminiOutRate)
				}
			}
		}
		var cm glClientMessage
		if parseGemini(data, &cm) != nil {
			return
		}
		if cm.Setup != nil && checkGeminiSetup(*cm.Setup) == nil {
			if r := cm.Setup.RealtimeInputConfig; r != nil && r.AutomaticActivityDetection != nil && r.AutomaticActivityDetection.Disabled {
				t.Fatal("a setup that disables activity detection passed")
			}
			if g := cm.Setup.GenerationConfig; g != nil && slices.ContainsFunc(g.ResponseModalities, func(m string) bool { return !strings.EqualFold(m, "AUDIO") }) {
				t.Fatalf("response modalities %q passed", g.ResponseModalities)
			}
		}
		if in := cm.RealtimeInput; in != nil {
			for _, b := range append(in.MediaChunks, glBlob{MimeType: geminiInputMime}) {
				if rate, err := pcmRate(b.MimeType, 0); err == nil && rate == SampleRate && !strings.Contains(b.MimeType, "16000") {
					t.Fatalf("%q read as 16 kHz", b.MimeType)
				}
			}
		}
	})
}
