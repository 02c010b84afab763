package orchestrate

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

func TestHealthHandler(t *testing.T) {
	var started atomic.Bool
	srv := httptest.NewServer(HealthHandler(func(context.Context) error {
		if !started.Load() {
			return errors.New("workers not started")
		}
		return nil
	}))
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
	if code, body := get("/readyz"); code != 503 || body != "not ready: workers not started" {
		t.Errorf("readyz before start %d %q", code, body)
	}
	started.Store(true)
	if code, body := get("/readyz"); code != 200 || body != "ready" {
		t.Errorf("readyz after start %d %q", code, body)
	}
	if code, _ := get("/metrics"); code != 404 {
		t.Errorf("unknown path answered %d", code)
	}
}
