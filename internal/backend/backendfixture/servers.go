// Package backendfixture serves the two OpenAI-compatible APIs on
// 127.0.0.1 for the tests of the generative backends: a chat server that
// writes the lines a script prompt asks for, or bad answers where its
// script says, and a speech server that renders with espeak-ng at 24 kHz.
// Both can fail requests' first tries (429, 503, cut bodies) or die after a
// number of requests, as a killed server would.
package backendfixture

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/openai"
	"github.com/floorbench/floorbench/internal/testenv"
)

// Key is the API key the servers want.
const Key = "test-key"

// Endpoint is a test server of one of the two APIs on 127.0.0.1. It
// records the cache key of every request it answers and can fail a
// request's first tries (HTTP faults, retried by the client) or die after
// a number of requests, as a killed server would.
type Endpoint struct {
	*httptest.Server

	keyOf     func(body []byte) string
	mu        sync.Mutex
	transient func(key string, send int) string
	dieAfter  int
	sends     map[string]int // times each request body arrived
	answered  []string       // cache keys of the requests answered
	requests  int
	dead      bool
}

func newEndpoint(t testing.TB, keyOf func([]byte) string, answer func(w http.ResponseWriter, body []byte)) *Endpoint {
	e := &Endpoint{keyOf: keyOf, sends: map[string]int{}}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("Authorization") != "Bearer "+Key {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		if fault := e.arrive(body); fault != "" {
			e.fail(w, fault)
			return
		}
		answer(w, body)
	}))
	t.Cleanup(e.Close)
	return e
}

// SetTransient makes the send-th arrival (from 1) of the request with
// cache key key fail as transient says: "429", "503", "cut" or ""
// (answered). It takes the endpoint's lock, as its handlers do, so that
// the setting reaches requests that come from another process, which the
// race detector sees no ordering with.
func (e *Endpoint) SetTransient(transient func(key string, send int) string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.transient = transient
}

// SetDieAfter makes the endpoint answer n requests, then die (0: never),
// under its lock as SetTransient.
func (e *Endpoint) SetDieAfter(n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.dieAfter = n
}

// arrive counts a request and says how it fails ("" : it is answered).
func (e *Endpoint) arrive(body []byte) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.requests++
	if e.dead {
		return "die"
	}
	key := e.keyOf(body)
	e.sends[key]++
	if e.transient != nil {
		if f := e.transient(key, e.sends[key]); f != "" {
			return f
		}
	}
	if e.dieAfter > 0 && len(e.answered) == e.dieAfter {
		e.dead = true
		return "die"
	}
	e.answered = append(e.answered, key)
	return ""
}

func (e *Endpoint) fail(w http.ResponseWriter, fault string) {
	switch fault {
	case "429":
		w.Header().Set("Retry-After", "0")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	case "503":
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	case "cut":
		// A body shorter than announced: the client reads a truncated answer.
		w.Header().Set("Content-Length", "4096")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(`{"choices": [{"mess`))
	case "die":
		// The server goes away: this connection and every later one fail.
		go e.Server.Close()
		panic(http.ErrAbortHandler)
	}
}

// Counts returns the requests that arrived and the keys answered.
func (e *Endpoint) Counts() (int, []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.requests, append([]string(nil), e.answered...)
}

// FaultsEvery fails the first send of about one request in n with fault,
// chosen by the request's key so that it does not depend on the order of
// arrival.
func FaultsEvery(n uint64, faults ...string) func(string, int) string {
	return func(key string, send int) string {
		h := Hash(key)
		if send > 1 || h%n != 0 {
			return ""
		}
		return faults[(h/n)%uint64(len(faults))]
	}
}

func Hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// The chat server writes the lines a script prompt asks for, in words
// drawn from the request's seed, except where contentFault (by attempt and
// prompt) says to answer badly: malformed JSON, an answer cut off at the
// token limit, a wrong speaker, a runaway or empty sentence, a missing
// line.
var (
	lineAsk    = regexp.MustCompile(`(?m)^Line (\d+): speaker (\d+), about (\d+) words in (\d+) sentences?(, ending with a question)?\.$`)
	attemptAsk = regexp.MustCompile(`This is attempt (\d+)`)
	words      = strings.Fields("we could try the other one tomorrow if the weather holds and everyone agrees that it sounds fine " +
		"maybe after lunch would work better for me since the morning is busy with calls and the shop opens late")
)

// ChatScript says how the chat server answers attempt of a prompt
// whose user message is user: "" (well) or "malformed", "truncated",
// "speaker", "runaway", "empty", "missing".
type ChatScript func(attempt int, user string) string

// ChatServer starts the chat server (model "test-chat").
func ChatServer(t testing.TB, script ChatScript) *Endpoint {
	return newEndpoint(t, keys.ChatAnswer, func(w http.ResponseWriter, body []byte) {
		var req openai.ChatRequest
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) != 2 || req.Model != "test-chat" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		user := req.Messages[1].Content
		attempt := 1
		if m := attemptAsk.FindStringSubmatch(user); m != nil {
			attempt, _ = strconv.Atoi(m[1])
		}
		content, finish := chatAnswer(script(attempt, user), user, req.Seed)
		json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{
			{"message": map[string]string{"role": "assistant", "content": content}, "finish_reason": finish}}})
	})
}

// chatAnswer is the answer of kind fault ("" : a good one).
func chatAnswer(fault, user string, seed uint64) (content, finish string) {
	rng := rand.New(rand.NewPCG(seed, 7))
	type line struct {
		Speaker   int      `json:"speaker"`
		Sentences []string `json:"sentences"`
	}
	var lines []line
	for _, m := range lineAsk.FindAllStringSubmatch(user, -1) {
		speaker, _ := strconv.Atoi(m[2])
		n, _ := strconv.Atoi(m[3])
		s, _ := strconv.Atoi(m[4])
		lines = append(lines, line{Speaker: speaker, Sentences: sentences(rng, n, s, m[5] != "")})
	}
	switch fault {
	case "speaker":
		lines[0].Speaker += 7
	case "runaway":
		lines[len(lines)-1].Sentences[0] = strings.Repeat("and then ", 40) + "done."
	case "empty":
		lines[0].Sentences = append(lines[0].Sentences, " ")
	case "missing":
		lines = lines[1:]
	}
	data, _ := json.Marshal(map[string]any{"lines": lines})
	switch fault {
	case "malformed":
		return "Sure! Here are the lines: {lines: [" + string(data[:len(data)/3]), "stop"
	case "truncated":
		return string(data[:len(data)/2]), "length"
	}
	return "```json\n" + string(data) + "\n```", "stop"
}

// sentences splits n words into s sentences, the last a question when asked.
func sentences(rng *rand.Rand, n, s int, question bool) []string {
	var out []string
	for k := range s {
		m := n/s + map[bool]int{true: 1, false: 0}[k < n%s]
		var ws []string
		for range max(m, 1) {
			ws = append(ws, words[rng.IntN(len(words))])
		}
		text := strings.ToUpper(ws[0][:1]) + strings.Join(ws, " ")[1:] + "."
		if question && k == s-1 {
			text = text[:len(text)-1] + "?"
		}
		out = append(out, text)
	}
	return out
}

// The speech server renders the input with espeak-ng in the voice asked
// for and answers at 24 kHz, as WAV or as the API's headerless pcm.
// SpeechServer starts the speech server (model "test-voices").
func SpeechServer(t testing.TB) *Endpoint {
	espeak := testenv.Program(t, "espeak-ng", "speech")
	dir := t.TempDir()
	var n sync.Mutex
	count := 0
	return newEndpoint(t, keys.Speech, func(w http.ResponseWriter, body []byte) {
		var req openai.SpeechRequest
		if err := json.Unmarshal(body, &req); err != nil || req.Model != "test-voices" || req.Input == "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		n.Lock()
		count++
		path := filepath.Join(dir, fmt.Sprintf("u%d.wav", count))
		n.Unlock()
		defer os.Remove(path)
		if out, err := exec.Command(espeak, "-v", req.Voice, "-w", path, "--", req.Input).CombinedOutput(); err != nil {
			t.Logf("espeak-ng -v %s: %v: %s", req.Voice, err, out)
			http.Error(w, string(out), http.StatusInternalServerError)
			return
		}
		x, rate, err := audio.ReadWAV(path)
		if err != nil {
			t.Logf("espeak-ng output: %v", err)
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		x = audio.Resample(x, rate, 24000)
		for i := range x {
			x[i] = min(max(x[i], -1), 1) // resampling overshoots a full-scale peak
		}
		var buf bytes.Buffer
		if req.ResponseFormat == openai.FormatPCM {
			for _, s := range x {
				binary.Write(&buf, binary.LittleEndian, audio.PCM16(s))
			}
		} else if err := audio.EncodeWAV(&buf, x, 24000); err != nil {
			t.Logf("encode: %v", err)
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Write(buf.Bytes())
	})
}

// EspeakVoices are n voice names the speech server knows: espeak-ng's
// English accents with its variants.
func EspeakVoices(n int) []string {
	var out []string
	for _, acc := range []string{"en-us", "en", "en-gb-scotland", "en-029"} {
		for _, va := range []string{"m1", "m2", "m3", "m4", "m5", "m7", "f1", "f2", "f3", "f4"} {
			out = append(out, acc+"+"+va)
		}
	}
	return out[:n]
}
