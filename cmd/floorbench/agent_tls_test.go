package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
// events are the GA ones, with audio, and no error; session.created is
// GA-shaped, session.updated echoes the voice and instructions sent, and
// the response's output item and content part are announced before its
// audio and done, in the reference's order, before response.done.
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
			Status      string   `json:"status"`
			AudioBytes  int      `json:"audio_bytes"`
			Types       []string `json:"types"`
			CreatedType string   `json:"created_type"`
			Updated     struct {
				Voice        string `json:"voice"`
				Instructions string `json:"instructions"`
			} `json:"updated"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("the SDK script printed %q: %v", out, err)
		}
		if got.Status != "completed" || got.AudioBytes == 0 || slices.Contains(got.Types, "error") {
			t.Errorf("the SDK's session: status %q, %d bytes of audio, events %v", got.Status, got.AudioBytes, got.Types)
		}
		if got.CreatedType != "realtime" || got.Updated.Voice != "alloy" || got.Updated.Instructions != "Answer briefly." {
			t.Errorf("session.created of type %q, session.updated echoing %+v; want realtime, voice alloy and the instructions sent", got.CreatedType, got.Updated)
		}
		// The response's events in order, its deltas as one.
		var order []string
		for _, typ := range got.Types {
			if strings.HasPrefix(typ, "response.") && (len(order) == 0 || order[len(order)-1] != typ) {
				order = append(order, typ)
			}
		}
		want := []string{"response.created", "response.output_item.added", "response.content_part.added",
			"response.output_audio_transcript.delta", "response.output_audio.delta", "response.output_audio.done",
			"response.output_audio_transcript.done", "response.content_part.done", "response.output_item.done", "response.done"}
		if !slices.Equal(order, want) {
			t.Errorf("the SDK saw the response's events (deltas as one)\n%v\nwant\n%v", order, want)
		}
	})
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v; stderr %s", err, stderr.String())
	}
}
