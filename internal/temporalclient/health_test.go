package temporalclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// /readyz says "not ready" and nothing more: the reason (an internal
// address, the server's error text) goes to the worker's log.
func TestHealthHandler(t *testing.T) {
	var started atomic.Bool
	var log bytes.Buffer
	srv := httptest.NewServer(HealthHandler(func(context.Context) error {
		if !started.Load() {
			return errors.New("dial tcp 10.1.2.3:7233: connection refused")
		}
		return nil
	}, slog.New(slog.NewTextHandler(&log, nil))))
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(body))
	}
	if code, body := get("/healthz"); code != 200 || body != "ok" {
		t.Errorf("healthz %d %q", code, body)
	}
	if code, body := get("/readyz"); code != 503 || body != "not ready" {
		t.Errorf("readyz before start %d %q", code, body)
	}
	if !strings.Contains(log.String(), "10.1.2.3:7233") {
		t.Errorf("the reason is not logged: %q", log.String())
	}
	started.Store(true)
	if code, body := get("/readyz"); code != 200 || body != "ready" {
		t.Errorf("readyz after start %d %q", code, body)
	}
	if code, _ := get("/metrics"); code != 404 {
		t.Errorf("unknown path answered %d", code)
	}
}

// A NotReady says its reason, then the error under it, which errors.Is
// finds.
func TestNotReadyWrapsItsCause(t *testing.T) {
	cause := errors.New("connection refused")
	if err := (&NotReady{Reason: "waiting for Temporal", Err: cause}); err.Error() != "waiting for Temporal: connection refused" || !errors.Is(err, cause) {
		t.Errorf("NotReady with a cause: %q", err.Error())
	}
	if err := (&NotReady{Reason: "polling"}); err.Error() != "polling" || errors.Unwrap(err) != nil {
		t.Errorf("NotReady without a cause: %q", err.Error())
	}
}
