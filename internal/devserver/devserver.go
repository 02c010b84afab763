package devserver

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"

	"github.com/floorbench/floorbench/internal/childenv"
)

// Server is a Temporal dev server started from the pinned Temporal CLI
// (scripts/setup.sh temporal); it is never downloaded.
type Server struct {
	Address string
	// DBFile is the server's SQLite database; empty keeps it in memory,
	// which costs the server about half the CPU (the quickstart's choice).
	DBFile string
	dir    string
	bin    string
	cmd    *exec.Cmd
	log    *os.File
}

// PID is the server process's id (0 before Start).
func (d *Server) PID() int {
	if d.cmd == nil || d.cmd.Process == nil {
		return 0
	}
	return d.cmd.Process.Pid
}

// TemporalCLI is the path of the setup's Temporal CLI under tools.
func TemporalCLI(tools string) string { return filepath.Join(tools, "bin", "temporal") }

// New prepares a dev server on a free loopback port that logs into
// dir. With persist, its database is a file in dir, kept across restarts so
// that workflows survive one.
func New(bin, dir string, persist bool) (*Server, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("no Temporal CLI at %s: run scripts/setup.sh temporal", bin)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	d := &Server{Address: "127.0.0.1:" + strconv.Itoa(port), dir: dir, bin: bin}
	if persist {
		d.DBFile = filepath.Join(dir, "temporal.db")
	}
	return d, nil
}

// Start starts the server and waits until it serves the default namespace.
func (d *Server) Start(ctx context.Context) error {
	_, port, _ := net.SplitHostPort(d.Address)
	logPath := filepath.Join(d.dir, "temporal.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	d.log = logFile
	args := []string{"server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", port, "--log-level", "warn"}
	if d.DBFile != "" {
		args = append(args, "--db-filename", d.DBFile)
	}
	d.cmd = exec.Command(d.bin, args...)
	d.cmd.Stdout, d.cmd.Stderr = logFile, logFile
	d.cmd.Env = childenv.Minimal(os.LookupEnv)
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := d.cmd.Start(); err != nil {
		return fmt.Errorf("start Temporal dev server: %w", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		cl, err := client.DialContext(ctx, client.Options{HostPort: d.Address, Namespace: "default", Logger: log.NewStructuredLogger(slog.New(slog.DiscardHandler))})
		if err == nil {
			_, err = cl.CheckHealth(ctx, &client.CheckHealthRequest{})
			cl.Close()
			if err == nil {
				return nil
			}
		}
		if ctx.Err() != nil {
			d.Stop()
			return ctx.Err()
		}
		time.Sleep(200 * time.Millisecond)
	}
	d.Stop()
	return fmt.Errorf("the Temporal dev server did not start on %s (log: %s)", d.Address, logPath)
}

// Stop stops the server and waits for it (and its children) to exit.
func (d *Server) Stop() { d.stop(syscall.SIGTERM) }

// Crash kills the server and its children at once (SIGKILL), as a machine
// failure would, and waits for them; its database file stays as the crash
// left it.
func (d *Server) Crash() { d.stop(syscall.SIGKILL) }

func (d *Server) stop(sig syscall.Signal) {
	if d.cmd == nil || d.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-d.cmd.Process.Pid, sig)
	done := make(chan struct{})
	go func() { _ = d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	d.cmd = nil
	if d.log != nil {
		d.log.Close()
	}
}
