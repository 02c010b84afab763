package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// server answers each request with the next of its statuses (the last
// one repeats), 200 with a chat completion.
func server(t *testing.T, statuses ...int) (*httptest.Server, *atomic.Int32, *atomic.Value) {
	var n atomic.Int32
	var auth atomic.Value
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		io.ReadAll(r.Body)
		i := int(n.Add(1)) - 1
		code := statuses[min(i, len(statuses)-1)]
		if code != http.StatusOK {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "no", code)
			return
		}
		w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`))
	}))
	t.Cleanup(s.Close)
	return s, &n, &auth
}

var quick = Options{Attempts: 4, Backoff: time.Millisecond}

func TestChatRetriesWhatIsWorthRetrying(t *testing.T) {
	cases := []struct {
		name     string
		statuses []int
		requests int32
		err      string
	}{
		{"ok", []int{200}, 1, ""},
		{"429 then ok", []int{429, 503, 200}, 3, ""},
		{"5xx every time", []int{502}, 4, "answered 502 Bad Gateway"},
		{"400 is not retried", []int{400}, 1, "answered 400 Bad Request"},
		{"401 is not retried", []int{401}, 1, "answered 401 Unauthorized"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, n, auth := server(t, c.statuses...)
			cl, err := New(strings.Replace(s.URL, "http://", "http://user:pw@", 1)+"/v1", "sk-secret", quick)
			if err != nil {
				t.Fatal(err)
			}
			a, err := cl.Chat(context.Background(), ChatRequest{Model: "m"})
			if n.Load() != c.requests || cl.Requests() != int64(c.requests) {
				t.Fatalf("%d requests (client counted %d), want %d", n.Load(), cl.Requests(), c.requests)
			}
			if auth.Load() != "Bearer sk-secret" {
				t.Fatalf("Authorization %q", auth.Load())
			}
			if c.err == "" {
				if err != nil || a.Content != "hi" {
					t.Fatalf("%+v, %v", a, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("err = %v, want %q", err, c.err)
			}
			if strings.Contains(err.Error(), "sk-secret") || strings.Contains(err.Error(), "pw@") {
				t.Fatalf("error %q shows a credential", err)
			}
		})
	}
}

func TestEachAttemptHasADeadline(t *testing.T) {
	release := make(chan struct{})
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer s.Close()
	defer close(release)
	cl, _ := New(s.URL, "", Options{Attempts: 2, Backoff: time.Millisecond, Timeout: 50 * time.Millisecond})
	_, err := cl.Speech(context.Background(), SpeechRequest{Model: "m", Input: "hi", Voice: "v", ResponseFormat: FormatWAV})
	if err == nil || !strings.Contains(err.Error(), "no answer within the deadline") || n.Load() != 2 {
		t.Fatalf("err = %v after %d requests", err, n.Load())
	}
}

func TestConcurrencyIsBounded(t *testing.T) {
	var inFlight, most atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := inFlight.Add(1)
		for {
			m := most.Load()
			if k <= m || most.CompareAndSwap(m, k) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		inFlight.Add(-1)
		w.Write([]byte("RIFF"))
	}))
	defer s.Close()
	cl, _ := New(s.URL, "", Options{Concurrency: 2})
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := cl.Speech(context.Background(), SpeechRequest{Model: "m", Input: "x", Voice: "v", ResponseFormat: FormatPCM})
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if most.Load() > 2 {
		t.Fatalf("%d requests in flight at once, bound 2", most.Load())
	}
}

func TestCheckEndpoint(t *testing.T) {
	for _, bad := range []string{"", "127.0.0.1:8000", "ftp://host/v1", "http:///v1", "http://host/v1?key=sk-x", "http://host/#f"} {
		if err := CheckEndpoint(bad); err == nil || strings.Contains(err.Error(), "sk-x") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if err := CheckEndpoint("https://api.example.com/v1"); err != nil {
		t.Error(err)
	}
}

func TestParseChatResponse(t *testing.T) {
	cases := []struct {
		body string
		want ChatAnswer
		err  string
	}{
		{`{"choices":[{"message":{"content":"{}"},"finish_reason":"stop"}]}`, ChatAnswer{Content: "{}"}, ""},
		{`{"choices":[{"message":{"content":"{\"li"},"finish_reason":"length"}]}`, ChatAnswer{Content: `{"li`, Truncated: true}, ""},
		{`{"choices":[]}`, ChatAnswer{}, "no choices[0].message.content"},
		{`{"choices":[{"message":{}}]}`, ChatAnswer{}, "no choices[0].message.content"},
		{`{"choices":[{"message":{"content":"sk-secret`, ChatAnswer{}, "not valid JSON"},
		{`{"choices":"sk-secret"}`, ChatAnswer{}, "choices: want a list, not a string"},
		{`{"choices":[{"message":{"content":7}}]}`, ChatAnswer{}, "choices.message.content: want a string, not a number"},
	}
	for _, c := range cases {
		a, err := ParseChatResponse([]byte(c.body))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("%s: err = %v", c.body, err)
			}
			continue
		}
		if err != nil || a != c.want {
			t.Errorf("%s: %+v, %v", c.body, a, err)
		}
	}
}

func FuzzParseChatResponse(f *testing.F) {
	f.Add([]byte(`{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}]}`))
	f.Add([]byte(`{"choices":[{"message":{"content":null}}]}`))
	f.Add([]byte(`{"choices":[{"message":{"content":"x"},"finish_reason":"length"}],"usage":{}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseChatResponse(data)
		if err != nil {
			return
		}
		// What was read encodes again and reads back the same.
		again, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"content": a.Content},
			"finish_reason": map[bool]string{true: "length", false: "stop"}[a.Truncated]}}})
		b, err := ParseChatResponse(again)
		if err != nil || b != a {
			t.Fatalf("%+v read back as %+v, %v", a, b, err)
		}
	})
}

// A 307 is not followed: the origin it points to receives nothing, not
// the key, and the error says why.
func TestARedirectIsNotFollowed(t *testing.T) {
	var reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	defer other.Close()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer s.Close()
	cl, err := New(s.URL+"/v1", "sk-secret", quick)
	if err != nil {
		t.Fatal(err)
	}
	for _, ask := range []func() error{
		func() error { _, err := cl.Chat(context.Background(), ChatRequest{Model: "m"}); return err },
		func() error { _, err := cl.Speech(context.Background(), SpeechRequest{Model: "m"}); return err },
	} {
		if err := ask(); err == nil || !strings.Contains(err.Error(), "answered 307 Temporary Redirect (redirects are not followed") {
			t.Errorf("a 307: %v", err)
		}
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the other origin received %d requests", n)
	}
}

// What an endpoint sends back (its status line, a header, a body, a
// malformed answer) never brings the key into an error.
func TestAnEndpointsAnswerNeverCarriesTheKey(t *testing.T) {
	const key = "sk-probe-3b9d-credential"
	for _, c := range []struct {
		name   string
		answer func(w http.ResponseWriter)
	}{
		{"error body and header", func(w http.ResponseWriter) {
			w.Header().Set("X-Echo", key)
			http.Error(w, "Incorrect API key provided: "+key, http.StatusUnauthorized)
		}},
		{"malformed status line", func(w http.ResponseWriter) {
			conn, buf, _ := w.(http.Hijacker).Hijack()
			buf.WriteString("HTTP/1.1 2x0 key " + key + "\r\n\r\n")
			buf.Flush()
			conn.Close()
		}},
		{"wrong-type answer", func(w http.ResponseWriter) { w.Write([]byte(`{"choices":"` + key + `"}`)) }},
	} {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { c.answer(w) }))
		cl, err := New(s.URL+"/v1", key, Options{Attempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = cl.Chat(context.Background(), ChatRequest{Model: "m"})
		if err == nil || strings.Contains(err.Error(), key) || strings.Contains(err.Error(), "3b9d") {
			t.Errorf("%s: %v", c.name, err)
		}
		s.Close()
	}
}

// A Retry-After longer than the limit is cut to it, and the first long
// wait is told once.
func TestALongRetryAfterIsCappedAndTold(t *testing.T) {
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			w.Header().Set("Retry-After", "99999")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		w.Write([]byte(`{"choices":[{"message":{"content":"hi"}}]}`))
	}))
	defer s.Close()
	var notice strings.Builder
	if got := retryAfterOf(http.Header{"Retry-After": {"99999"}}, 10*time.Second); got != 10*time.Second {
		t.Errorf("Retry-After 99999 under a limit of 10 s: %v", got)
	}
	if got := retryAfterOf(http.Header{"Retry-After": {"9"}}, 10*time.Second); got != 9*time.Second {
		t.Errorf("Retry-After 9 under a limit of 10 s: %v", got)
	}
	cl, err := New(s.URL+"/v1", "", Options{Attempts: 3, Backoff: time.Millisecond, MaxRetryAfter: time.Millisecond, Notice: &notice})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Chat(context.Background(), ChatRequest{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	if got := notice.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "answered 429 Too Many Requests: waiting 1ms before trying again") ||
		!strings.Contains(got, "limits.retry_after_s") {
		t.Errorf("the notice: %q, want one line naming the wait and the limit", got)
	}
}
