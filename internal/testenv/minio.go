package testenv

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/floorbench/floorbench/internal/store/s3"
)

// MinIO is a real MinIO server on loopback, started for one test.
type MinIO struct {
	Dir    string
	Addr   string
	User   string
	Secret string
	cmd    *exec.Cmd
	bin    string
	t      testing.TB
}

// StartMinIO starts MinIO on a free loopback port with its data in a
// temporary directory and stops it when the test ends.
func StartMinIO(t testing.TB) *MinIO {
	t.Helper()
	m := &MinIO{
		Dir:    t.TempDir(),
		Addr:   Addr(FreePort(t)),
		User:   "floorbench",
		Secret: "floorbench-secret",
		bin:    Tool(t, "minio", "minio"),
		t:      t,
	}
	m.Start()
	t.Cleanup(m.Stop)
	return m
}

// Start (re)starts the server on the same address and data directory.
func (m *MinIO) Start() {
	m.t.Helper()
	console := Addr(FreePort(m.t))
	m.cmd = exec.Command(m.bin, "server", m.Dir, "--address", m.Addr, "--console-address", console, "--quiet")
	m.cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+m.User, "MINIO_ROOT_PASSWORD="+m.Secret, "MINIO_BROWSER=off")
	m.cmd.Stdout, m.cmd.Stderr = nil, nil
	if log, err := os.Create(filepath.Join(m.t.TempDir(), "minio.log")); err == nil {
		m.cmd.Stdout, m.cmd.Stderr = log, log
	}
	if err := m.cmd.Start(); err != nil {
		m.t.Fatalf("start minio: %v", err)
	}
	// The health endpoint answers before MinIO has loaded its users: wait
	// until an authenticated request succeeds too.
	client, err := minio.New(m.Addr, &minio.Options{Creds: credentials.NewStaticV4(m.User, m.Secret, "")})
	if err != nil {
		m.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(fmt.Sprintf("http://%s/minio/health/ready", m.Addr))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				_, err = client.ListBuckets(ctx)
				cancel()
				if err == nil {
					return
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	m.t.Fatalf("minio did not become ready on %s", m.Addr)
}

// Stop stops the server and waits for it to exit.
func (m *MinIO) Stop() {
	if m.cmd == nil || m.cmd.Process == nil {
		return
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = m.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = m.cmd.Process.Kill()
		<-done
	}
	m.cmd = nil
}

// Config is an S3 configuration for a bucket on this server.
func (m *MinIO) Config(bucket string) s3.Config {
	return s3.Config{Endpoint: m.Addr, Bucket: bucket, AccessKey: m.User, SecretKey: m.Secret}
}

// CreateBucket creates bucket on this server unless it exists.
func (m *MinIO) CreateBucket(t testing.TB, bucket string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s3.CreateBucket(ctx, m.Config(bucket)); err != nil {
		t.Fatal(err)
	}
}

// Store opens bucket on this server, creating it first.
func (m *MinIO) Store(t testing.TB, bucket string) *s3.Store {
	t.Helper()
	m.CreateBucket(t, bucket)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := s3.New(ctx, m.Config(bucket))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
