package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/testenv"
)

// The front (scripts/build.sh's floorbench) lists every command and
// hands those of floorbench-full to it: its help, each such command's
// help and its version are floorbench-full's, byte for byte.
func TestFrontIsFloorbenchFull(t *testing.T) {
	full := filepath.Join(filepath.Dir(binary), "floorbench-full")
	same := func(args ...string) {
		t.Helper()
		want, err := exec.Command(full, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("floorbench-full %q: %v: %s", args, err, want)
		}
		stdout, stderr, code := run(t, args...)
		if code != 0 || stdout+stderr != string(want) {
			t.Errorf("floorbench %q: exit %d, printed\n%s%s\nfloorbench-full printed\n%s", args, code, stdout, stderr, want)
		}
	}
	same("--help")
	same("--version")
	names := make([]string, 0, len(fullOnly))
	for name := range fullOnly {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		same(name, "--help")
		same("help", name)
	}
	same("bundle", "ls", "--help")
	same("__complete", "bundle", "")
	same("corpus", "ingest", "--help")
	same("corpus", "ingest", "turnbench", "--help")
}

// The front links no S3 client: a command whose configuration names an
// S3 store is floorbench-full's, from its first line of output to its
// exit status (here, an endpoint nobody listens on).
func TestFrontHandsS3StoresToFloorbenchFull(t *testing.T) {
	full := filepath.Join(filepath.Dir(binary), "floorbench-full")
	dir := t.TempDir()
	env := []string{"FLOORBENCH_S3_ENDPOINT=" + testenv.Addr(testenv.FreePort(t)), "FLOORBENCH_S3_BUCKET=nobucket"}
	args := []string{"corpus", "export-cache", tinyCorpus(t), "--out", filepath.Join(dir, "cache"), "--config", ""}
	cmd := exec.Command(full, args...)
	cmd.Env = append(os.Environ(), env...)
	want, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); !ok || !strings.Contains(string(want), "cannot reach the S3 endpoint") {
		t.Fatalf("floorbench-full %q: %v: %s", args, err, want)
	}
	stdout, stderr, code, _ := runWith(t, env, args...)
	if code != cmd.ProcessState.ExitCode() || stdout+stderr != string(want) {
		t.Errorf("floorbench %q: exit %d, printed\n%s%s\nfloorbench-full printed\n%s", args, code, stdout, stderr, want)
	}
}

// A front copied without floorbench-full still runs its own commands and
// refuses the others with one line naming what is missing.
func TestFrontWithoutFloorbenchFull(t *testing.T) {
	dir := t.TempDir()
	alone := filepath.Join(dir, "floorbench")
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(alone, "score", "--help").CombinedOutput(); err != nil || !strings.Contains(string(out), "--predictions") {
		t.Errorf("score --help alone: %v: %s", err, out)
	}
	for _, args := range [][]string{{"worker"}, {"help", "quickstart"}} {
		cmd := exec.Command(alone, args...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		want := "floorbench: " + args[len(args)-1] + " needs floorbench-full beside floorbench in " + dir + " (scripts/build.sh " + dir + " builds both)\n"
		if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 || stdout.Len() != 0 || stderr.String() != want {
			t.Errorf("%q alone: %v, stdout %q\nstderr %q\nwant   %q", args, err, stdout.String(), stderr.String(), want)
		}
	}
}
