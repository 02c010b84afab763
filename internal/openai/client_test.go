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
		{`{"choices":[{"message":{"content":"sk-secret`, ChatAnswer{}, "not JSON"},
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
