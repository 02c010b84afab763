package main

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/testenv"
)

// `agent serve` serves the reference agent over each protocol until
// SIGTERM: a client opens a session, talks, hears the agent answer, and
// the server then stops cleanly, having logged the session.
func TestAgentServeAnswersOverEachProtocolUntilStopped(t *testing.T) {
	testenv.Program(t, "espeak-ng", "speech")
	for _, protocol := range proto.Protocols() {
		t.Run(protocol, func(t *testing.T) {
			cmd, addr, stderr := startAgentServe(t, protocol, "ws")
			if responses := talkToAgent(t, proto.Endpoint{Protocol: protocol, URL: "ws://" + addr + "/", Rate: 10}); responses == 0 {
				t.Errorf("the agent never answered")
			}
			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Errorf("after SIGTERM: %v; stderr %s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), "session opened") {
				t.Errorf("stderr does not log the session: %s", stderr.String())
			}
		})
	}
}

// startAgentServe starts `agent serve --protocol protocol` on a free
// loopback port at ten times real time, with args after, and waits for
// its first line, which must give its scheme:// URL; the process is
// killed when the test ends. It returns the command, its address and
// its stderr.
func startAgentServe(t *testing.T, protocol, scheme string, args ...string) (*exec.Cmd, string, *bytes.Buffer) {
	t.Helper()
	addr := testenv.Addr(testenv.FreePort(t))
	cmd := exec.Command(binary, append([]string{"agent", "serve", "--protocol", protocol, "--addr", addr, "--rate", "10"}, args...)...)
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, "speaks "+protocol+" at "+scheme+"://"+addr+"/") {
		t.Fatalf("first line %q (%v), stderr %s", line, err, stderr.String())
	}
	return cmd, addr, stderr
}

// talkToAgent plays a second of loud noise, then silence, at ten times
// real time, and counts the responses the agent starts.
func talkToAgent(t *testing.T, ep proto.Endpoint) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := proto.Dial(ctx, ep)
	if err != nil {
		t.Fatal(err)
	}
	responses := make(chan int, 1)
	go func() {
		n, talking := 0, false
		for {
			o, err := s.Recv(ctx)
			if err != nil {
				responses <- n
				return
			}
			// moshi has no response events: its answer is loud audio
			// after quiet.
			switch {
			case o.Event != nil && o.Event.Kind == proto.ResponseStarted:
				n++
			case ep.Protocol == proto.MoshiName && o.Event == nil:
				loud := peakOf(o.Audio) > 0.05
				if loud && !talking {
					n++
				}
				talking = loud
			}
		}
	}()
	for k := range 150 {
		frame := make([]float32, proto.FrameSamples)
		for i := range frame {
			if k >= 10 && k < 60 {
				frame[i] = float32((i*7919)%200-100) / 400 // loud, noise-like
			}
		}
		if err := s.Send(ctx, frame); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	return <-responses
}

// peakOf is the largest magnitude in x.
func peakOf(x []float32) float32 {
	var p float32
	for _, v := range x {
		p = max(p, v, -v)
	}
	return p
}

// Bad flags are one line before anything starts, with nothing on stdout.
func TestAgentServeRefusesBadFlags(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--protocol", "nope"}, `--protocol: unknown agent protocol "nope" (known: duplex, gemini-live, moshi, realtime)`},
		{[]string{"--protocol", "duplex", "--policy", "polite"}, `--policy: unknown agent policy "polite"`},
		{[]string{"--protocol", "duplex", "--policy", "detector"}, "--policy detector needs --system or --system-spec"},
		{[]string{"--protocol", "duplex", "--system", "rms"}, "are for --policy detector, not always-yield"},
		{[]string{"--protocol", "duplex", "--policy", "detector", "--system", "nope"}, "nope"},
		{[]string{"--protocol", "duplex", "--rate", "0"}, "--rate: playback rate 0"},
		{[]string{"--protocol", "duplex", "--addr", busy.Addr().String()}, "--addr: listen tcp " + busy.Addr().String()},
	} {
		stdout, stderr, code := run(t, append([]string{"agent", "serve"}, c.args...)...)
		if code == 0 || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line saying %q", c.args, code, stdout, stderr, c.want)
		}
	}
}
