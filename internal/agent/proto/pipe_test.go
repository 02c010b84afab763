package proto

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floorbench/floorbench/internal/testenv"
)

// A Pipe connection buffers PipeBuffer bytes as a socket does: a writer
// past it waits for the reader; deadlines end waits at their time on the
// bubble's clock; a closed end gives the other io.EOF on reading and
// io.ErrClosedPipe on writing.
func TestPipeBuffersAndKeepsDeadlines(t *testing.T) {
	testenv.Synctest(t, func(t *testing.T) {
		p := NewPipe()
		accepted := make(chan error, 1)
		var server io.ReadWriteCloser
		go func() {
			c, err := p.Accept()
			server = c
			accepted <- err
		}()
		client, err := p.Dial(context.Background(), "", "")
		if err != nil || <-accepted != nil {
			t.Fatalf("dial: %v", err)
		}
		if n, err := client.Write(make([]byte, PipeBuffer)); n != PipeBuffer || err != nil {
			t.Fatalf("a full buffer's write: %d, %v", n, err)
		}
		wrote := make(chan error, 1)
		go func() { _, err := client.Write([]byte{1}); wrote <- err }()
		synctest.Wait()
		select {
		case err := <-wrote:
			t.Fatalf("a write past the buffer returned %v before anything was read", err)
		default:
		}
		if _, err := io.ReadFull(server, make([]byte, PipeBuffer+1)); err != nil {
			t.Fatal(err)
		}
		if err := <-wrote; err != nil {
			t.Fatal(err)
		}

		start := time.Now()
		server.(interface{ SetReadDeadline(time.Time) error }).SetReadDeadline(start.Add(3 * time.Second))
		if _, err := server.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) != 3*time.Second {
			t.Errorf("a read past its deadline: %v after %v, want a timeout after 3s", err, time.Since(start))
		}

		client.Close()
		if _, err := server.Read(make([]byte, 1)); err != io.EOF {
			t.Errorf("a read from a closed peer: %v, want io.EOF", err)
		}
		if _, err := server.Write([]byte{1}); !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("a write to a closed peer: %v, want io.ErrClosedPipe", err)
		}
		p.Close()
		if _, err := p.Dial(context.Background(), "", ""); err == nil {
			t.Error("a closed Pipe accepted a dial")
		}
		server.Close()
	})
}

// A Pipe with a Latency delivers each write that much later on the
// bubble's clock, in order, either way.
func TestPipeDelaysByItsLatency(t *testing.T) {
	testenv.Synctest(t, func(t *testing.T) {
		p := NewPipe()
		p.Latency = 3 * time.Millisecond
		accepted := make(chan io.ReadWriteCloser, 1)
		go func() {
			c, err := p.Accept()
			if err != nil {
				t.Error(err)
			}
			accepted <- c
		}()
		client, err := p.Dial(context.Background(), "", "")
		if err != nil {
			t.Fatal(err)
		}
		server := <-accepted
		for _, pair := range []struct{ from, to io.ReadWriteCloser }{{client, server}, {server, client}} {
			start := time.Now()
			pair.from.Write([]byte("ab"))
			time.Sleep(time.Millisecond)
			pair.from.Write([]byte("c"))
			got := make([]byte, 3)
			if n, err := pair.to.Read(got); n != 2 || err != nil || string(got[:n]) != "ab" || time.Since(start) != 3*time.Millisecond {
				t.Errorf("first read: %q, %v after %v; want \"ab\" after 3ms", got[:n], err, time.Since(start))
			}
			if n, err := pair.to.Read(got); n != 1 || err != nil || got[0] != 'c' || time.Since(start) != 4*time.Millisecond {
				t.Errorf("second read: %q, %v after %v; want \"c\" after 4ms", got[:n], err, time.Since(start))
			}
		}
		client.Close()
		server.Close()
		p.Close()
	})
}
