package devserver_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/devserver"
)

// A dev server that never answers (a program that records its arguments
// and sleeps, in place of the Temporal CLI): Start runs it with the
// server's address and database file, gives up when its context ends and
// stops the process it started, leaving none behind. A CLI that is not
// there is one error naming the path and the setup step.
func TestDevServerThatNeverAnswers(t *testing.T) {
	dir := t.TempDir()
	if _, err := devserver.New(filepath.Join(dir, "absent"), dir, false); err == nil ||
		!strings.Contains(err.Error(), filepath.Join(dir, "absent")) || !strings.Contains(err.Error(), "scripts/setup.sh temporal") {
		t.Errorf("a missing CLI: %v", err)
	}
	bin := filepath.Join(dir, "temporal")
	script := "#!/bin/sh\necho $$ > " + filepath.Join(dir, "pid") + "\necho \"$@\" > " + filepath.Join(dir, "args") + "\nexec sleep 600\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := devserver.New(bin, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if srv.DBFile != filepath.Join(dir, "temporal.db") || srv.PID() != 0 {
		t.Fatalf("database %q, pid %d before Start", srv.DBFile, srv.PID())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := srv.Start(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Start: %v; want the context's deadline", err)
	}
	args, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(srv.Address)
	for _, want := range []string{"server start-dev", "--ip 127.0.0.1", "--port " + port, "--db-filename " + srv.DBFile} {
		if !strings.Contains(string(args), want) {
			t.Errorf("the CLI was run with %q, without %q", args, want)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process %d still there after Start gave up (kill 0: %v)", pid, err)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if srv.PID() != 0 {
		t.Errorf("PID %d after Start gave up", srv.PID())
	}
	srv.Stop() // stopping a stopped server does nothing
	if _, err := os.Stat(filepath.Join(dir, "temporal.log")); err != nil {
		t.Errorf("no server log: %v", err)
	}
}

// The Temporal CLI is looked for where the setup puts it under its tools
// folder.
func TestTemporalCLIUnderTools(t *testing.T) {
	if got := devserver.TemporalCLI("/opt/tools"); got != "/opt/tools/bin/temporal" {
		t.Errorf("TemporalCLI: %s", got)
	}
}
