//go:build !floorbench_light

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/testenv"
)

// floorbench dev runs a Temporal dev server and a worker that submit,
// status and watch reach with what it prints: a sweep submitted with
// those settings completes, and Ctrl-C stops both cleanly.
func TestDevServesSubmit(t *testing.T) {
	temporalTool(t)
	dir := t.TempDir()
	storeDir := filepath.Join(dir, "store")
	addr := testenv.Addr(testenv.FreePort(t))
	dev := exec.Command(binary, "dev", "--config", "", "--temporal-address", addr, "--dir", filepath.Join(dir, "dev"), "--store-dir", storeDir, "-o", "json")
	stdout, err := dev.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	dev.Stderr = &stderr
	if err := dev.Start(); err != nil {
		t.Fatal(err)
	}
	defer dev.Process.Kill()
	var info devInfo
	if err := json.NewDecoder(stdout).Decode(&info); err != nil {
		t.Fatalf("dev printed no JSON: %v; stderr %q", err, stderr.String())
	}
	if info.TemporalAddress != addr || info.Env["FLOORBENCH_STORE_DIR"] != storeDir || len(info.Queues) != 3 {
		t.Fatalf("dev info %+v", info)
	}

	if err := auditfixture.Write(filepath.Join(dir, "corpus"), auditfixture.Shortcut(), 1); err != nil {
		t.Fatal(err)
	}
	specPath := writeFile(t, dir, "sweep.yaml", "name: dev\ncorpora: [{name: c, path: "+filepath.Join(dir, "corpus")+"}]\n"+
		"systems: [{name: rms, builtin: rms}]\nbootstrap: {resamples: 20, seed: 1}\n")
	var env []string
	for k, v := range info.Env {
		env = append(env, k+"="+v)
	}
	out, errOut, code, _ := runWith(t, env, "submit", specPath, "--wait", "-o", "json", "--config", "")
	var submitted struct {
		BundleID string `json:"bundle_id"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &submitted) != nil || submitted.BundleID == "" {
		t.Fatalf("submit to dev: exit %d, %q, %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(storeDir, "bundles", submitted.BundleID, "results.json")); err != nil {
		t.Fatalf("the bundle is not in dev's store: %v", err)
	}

	if err := dev.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- dev.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("dev after Ctrl-C: %v; stderr %q", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("dev did not stop within a minute of Ctrl-C")
	}
}
