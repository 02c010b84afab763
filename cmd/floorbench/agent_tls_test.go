package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/testenv"
)

// `agent serve --tls-cert --tls-key` serves wss:// with a certificate a
// CA made for the test signed: floorbench's client trusts the CA
// (Endpoint.CAFile, --ca-file) and hears the agent answer, and the
// official OpenAI SDK (npm openai, scripts/setup.sh openai-sdk), trusting
// it through NODE_EXTRA_CA_CERTS, completes a realtime session: its
// events are the GA ones, with audio, and no error.
func TestAgentServeOverTLS(t *testing.T) {
	testenv.Program(t, "espeak-ng", "speech")
	files := testenv.NewTLSFiles(t)
	cmd, addr, stderr := startAgentServe(t, proto.RealtimeName, "wss", "--tls-cert", files.Cert, "--tls-key", files.Key)
	url := "wss://" + addr + "/"
	if responses := talkToAgent(t, proto.Endpoint{Protocol: proto.RealtimeName, URL: url, Rate: 10, CAFile: files.CA}); responses == 0 {
		t.Errorf("the agent never answered over wss://")
	}
	t.Run("openai-sdk", func(t *testing.T) {
		node := testenv.Program(t, "node", "openai-sdk")
		sdk := testenv.Path(t, "openai-sdk-7.60.0", "openai-sdk")
		script, err := filepath.Abs(filepath.Join("testdata", "openai-realtime-session.mjs"))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		run := exec.CommandContext(ctx, node, script, sdk, "https://"+addr+"/v1")
		run.Env = append(os.Environ(), "NODE_EXTRA_CA_CERTS="+files.CA)
		out, err := run.Output()
		if err != nil {
			var why string
			if ee, ok := err.(*exec.ExitError); ok {
				why = string(ee.Stderr)
			}
			t.Fatalf("the SDK's session: %v: %s", err, why)
		}
		var got struct {
			Status     string   `json:"status"`
			AudioBytes int      `json:"audio_bytes"`
			Types      []string `json:"types"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("the SDK script printed %q: %v", out, err)
		}
		if got.Status != "completed" || got.AudioBytes == 0 || slices.Contains(got.Types, "error") {
			t.Errorf("the SDK's session: status %q, %d bytes of audio, events %v", got.Status, got.AudioBytes, got.Types)
		}
		for _, want := range []string{"session.created", "session.updated", "response.created", "response.output_audio.delta", "response.done"} {
			if !slices.Contains(got.Types, want) {
				t.Errorf("the SDK saw no %s: %v", want, got.Types)
			}
		}
	})
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v; stderr %s", err, stderr.String())
	}
}
