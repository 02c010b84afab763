package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/devserver"
	"github.com/floorbench/floorbench/internal/testenv"
)

// syncBuffer is a buffer a process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A worker started before Temporal listens waits for it, saying so in its
// log and in /readyz, and polls once Temporal is up; a malformed address
// is a configuration error and exits at once.
func TestWorkerWaitsForTemporal(t *testing.T) {
	if testing.Short() {
		t.Skip("a real Temporal dev server: skipped with -short")
	}
	srv, err := devserver.New(temporalTool(t), t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	health := testenv.Addr(testenv.FreePort(t))
	worker := exec.Command(binary, "worker", "--config", "", "--store-dir", t.TempDir(), "--temporal-address", srv.Address, "--health-addr", health)
	var log syncBuffer
	worker.Stdout, worker.Stderr = &log, &log
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- worker.Wait() }()
	t.Cleanup(func() {
		_ = worker.Process.Signal(syscall.SIGTERM)
		<-exited
	})
	readyz := func() (int, string) {
		resp, err := http.Get("http://" + health + "/readyz")
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(body))
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(90 * time.Second); !ok(); time.Sleep(200 * time.Millisecond) {
			select {
			case err := <-exited:
				t.Fatalf("the worker exited (%v) %s; log:\n%s", err, what, log.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 90 s; log:\n%s", what, log.String())
			}
		}
	}
	waitFor("while waiting for Temporal", func() bool {
		return strings.Count(log.String(), "waiting for Temporal") >= 2
	})
	if code, body := readyz(); code != http.StatusServiceUnavailable || body != "not ready: waiting for Temporal" {
		t.Errorf("readyz while waiting: %d %q", code, body)
	}
	if !strings.Contains(log.String(), "connection refused") || !strings.Contains(log.String(), "retry_in=") {
		t.Errorf("the log does not say why and when it retries:\n%s", log.String())
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	waitFor("after Temporal came up", func() bool { code, _ := readyz(); return code == http.StatusOK })
	if !strings.Contains(log.String(), "floorbench worker: polling") {
		t.Errorf("no polling line:\n%s", log.String())
	}

	stdout, stderr, code, _ := runWith(t, nil, "worker", "--config", "", "--store-dir", t.TempDir(), "--temporal-address", "no-port-here")
	oneErrorLine(t, stdout, stderr, code, "temporal_address no-port-here: address no-port-here: missing port in address")
}
