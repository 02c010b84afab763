package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/testenv"
)

func TestCorpusGenerateRejectsBadInputWithOneLine(t *testing.T) {
	full := t.TempDir()
	writeFile(t, full, "x", "y")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--preset", "huge", "--seed", "1", "--out", t.TempDir()}, `floorbench: unknown preset "huge" (want one of [mptb tiny train unheard])`},
		{[]string{"--preset", "tiny", "--seed", "-3", "--out", t.TempDir()}, `floorbench: --seed "-3": want a non-negative integer`},
		{[]string{"--preset", "tiny", "--seed", "x1", "--out", t.TempDir()}, `floorbench: --seed "x1": want a non-negative integer`},
		{[]string{"--preset", "tiny", "--seed", "1", "--out", full}, "floorbench: output folder " + full + " is not empty (use --force to replace the corpus in it)"},
		{[]string{"--preset", "tiny", "--seed", "1", "--out", t.TempDir(), "--jobs", "0"}, "floorbench: --jobs 0: want at least 1"},
	}
	for _, c := range cases {
		_, stderr, code := run(t, append([]string{"corpus", "generate"}, c.args...)...)
		if code != 1 || strings.TrimSpace(stderr) != c.want {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}

func TestCorpusCommandsOnTheTinyPreset(t *testing.T) {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		if os.Getenv("FLOORBENCH_REQUIRE_TOOLS") == "1" {
			t.Fatal("espeak-ng not found (scripts/setup.sh speech)")
		}
		t.Skip("espeak-ng not found; skipping (FLOORBENCH_REQUIRE_TOOLS=1 fails instead)")
	}
	dir := tinyCorpus(t)
	// Off a terminal the progress is plain lines, never a bar's redraws.
	if tiny.stdout != "wrote 12 conversations to "+dir+"\n" ||
		!strings.HasSuffix(tiny.stderr, "generating: 12/12\n") || strings.Contains(tiny.stderr, "\r") {
		t.Fatalf("generate: stdout %q\nstderr %q", tiny.stdout, tiny.stderr)
	}
	if stdout, _, code := run(t, "corpus", "check", dir); code != 0 || !strings.Contains(stdout, "12 conversations ok") {
		t.Fatalf("check: exit %d, %q", code, stdout)
	}
	stdout, _, code := run(t, "corpus", "stats", dir, "-o", "json")
	var stats map[string]json.RawMessage
	if code != 0 || json.Unmarshal([]byte(stdout), &stats) != nil {
		t.Fatalf("stats: exit %d, %q", code, stdout)
	}
	var keys []string
	for k := range stats {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"by_speakers", "by_type", "claim_pauses", "contested_hold_share", "conversations", "dev", "eot_positives", "hold_negatives", "hours",
		"int_excluded", "int_negatives", "int_positives", "listener_in_pauses", "overlap_events", "overlap_realised", "restart_share", "restarts", "test", "voices"}
	if !slices.Equal(keys, want) {
		t.Fatalf("stats fields %v, want %v", keys, want)
	}
	var byType map[string]map[string]any
	json.Unmarshal(stats["by_type"], &byType)
	if len(byType) != 6 || len(byType["casual"]) != 10 || byType["narrative"]["turn_mean_s"] == nil {
		t.Fatalf("by_type %v", byType)
	}
	stdout, _, code = run(t, "gold", "--corpus", dir, "--split", "test", "-o", "json")
	if code != 0 || !strings.Contains(stdout, `"eot_positive_events": [{"speaker": `) {
		t.Fatalf("gold: exit %d, %.200q", code, stdout)
	}
	stdout, _, code = run(t, "corpus", "timing", dir, "-o", "json")
	var timing floor.Timing
	if code != 0 || json.Unmarshal([]byte(stdout), &timing) != nil {
		t.Fatalf("timing: exit %d, %q", code, stdout)
	}
	// Every interruption of the tiny corpus takes the floor, and the
	// generator's gaps put most smooth transfers after the turn's end.
	if timing.Transfers < 20 || timing.Interruptions == 0 || timing.All.N != timing.Transfers ||
		timing.Smooth.N != timing.Transfers-timing.Interruptions || !(timing.Smooth.Median > 0) || !(timing.All.Overlap > timing.Smooth.Overlap) {
		t.Fatalf("timing %+v", timing)
	}
	out := t.TempDir()
	if stdout, _, code := run(t, "corpus", "export", dir, "--format", "rttm", "--out", out); code != 0 || stdout != "wrote 12 rttm files to "+out+"\n" {
		t.Fatalf("export: exit %d, %q", code, stdout)
	}
	// A second export into the filled folder is refused and leaves it as
	// it was; with --force it replaces it.
	mine := filepath.Join(out, "mine.txt")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, "corpus", "export", dir, "--format", "textgrid", "--out", out); code != 1 || !strings.Contains(stderr, "--force") {
		t.Fatalf("export into a non-empty folder: exit %d, %q", code, stderr)
	}
	if data, err := os.ReadFile(mine); err != nil || string(data) != "mine" {
		t.Fatalf("export without --force touched the folder: %q, %v", data, err)
	}
	if _, stderr, code := run(t, "corpus", "export", dir, "--format", "textgrid", "--out", out, "--force"); code != 0 {
		t.Fatalf("export --force: exit %d, %s", code, stderr)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 12 || filepath.Ext(entries[0].Name()) != ".TextGrid" {
		t.Fatalf("export --force left %v", entries)
	}
	// Generating over another corpus's folder needs --force, and the same
	// seed with other jobs, by another build of the code (another stamped
	// revision), gives the same bytes: the manifest names the generator's
	// version, not the binary's, so the corpus hash is the same too.
	again := copyCorpus(t, dir)
	if _, stderr, code := run(t, "corpus", "generate", "--preset", "tiny", "--seed", "1", "--out", again, "--jobs", "1"); code != 1 || !strings.Contains(stderr, "--force") {
		t.Fatalf("generate over a corpus without --force: exit %d, %q", code, stderr)
	}
	if testing.Short() {
		t.Log("-short: the second generation (--force, --jobs 1) is left to the full run")
		return
	}
	if out, err := exec.Command(anotherBuild(t), "corpus", "generate", "--preset", "tiny", "--seed", "1", "--out", again, "--jobs", "1", "--force").CombinedOutput(); err != nil {
		t.Fatalf("generate --force by another build: %v: %s", err, out)
	}
	// The manifest holds the sha256 of every file.
	before, _ := os.ReadFile(filepath.Join(dir, "corpus.json"))
	if after, _ := os.ReadFile(filepath.Join(again, "corpus.json")); len(before) == 0 || string(after) != string(before) {
		t.Fatalf("the same seed gave a different manifest:\n%.300s\nagainst\n%.300s", after, before)
	}
}

func TestCorpusCheckFailsOnAFolderWithoutManifest(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := run(t, "corpus", "check", dir)
	if code != 1 || strings.TrimSpace(stderr) != "floorbench: "+dir+": no corpus.json: not a floorbench corpus (or its generation did not finish)" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// anotherBuild is floorbench built with another stamped revision: what a
// corpus records must not change with it.
func anotherBuild(t *testing.T) string {
	t.Helper()
	bin, err := testenv.Build(".", "-ldflags", "-X github.com/floorbench/floorbench/internal/version.Revision=another-build")
	if err != nil {
		t.Fatal(err)
	}
	v, err := exec.Command(bin, "--version").Output()
	if first, _, _ := run(t, "--version"); err != nil || !strings.Contains(string(v), "another-build") || string(v) == first {
		t.Fatalf("the second build's version %q (the first's %q): %v", v, first, err)
	}
	return bin
}
