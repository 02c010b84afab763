package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

// storeBundle writes a bundle with one system's EOT test recall into a
// local store folder, as Aggregate does, and returns its id.
func storeBundle(t *testing.T, storeDir, name string, recall float64) string {
	t.Helper()
	meta := bundle.Meta{Name: name, Protocol: score.DefaultParams(), Resamples: 100, Seed: 1}
	eval := evaluate.Evaluation{System: "s", Corpus: "c", CorpusHash: "h", Tasks: []evaluate.TaskResult{{
		Task: floor.TaskEOT, HasOP: true, InBudget: true, Test: &report.TaskMetrics{Recall: report.Num(recall), FPRate: 0.05}}}}
	return writeBundle(t, storeDir, meta, eval)
}

// writeBundle builds a bundle of the evaluations and writes its files
// into a local store folder; it returns the bundle's id.
func writeBundle(t *testing.T, storeDir string, meta bundle.Meta, evals ...evaluate.Evaluation) string {
	t.Helper()
	files, res, err := bundle.Build(meta, bundle.Parts{Evaluations: evals}, "2026-12-02T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	id := res.BundleID
	for _, f := range files {
		path := filepath.Join(storeDir, filepath.FromSlash(keys.Bundle(id, f.Name)))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// bundle diff exits 0 without a regression, 1 with one, 2 on any error,
// and rejects tolerances that would hide or invent regressions.
func TestBundleDiffExitCodes(t *testing.T) {
	st := t.TempDir()
	good, bad, same := storeBundle(t, st, "good", 0.621), storeBundle(t, st, "bad", 0), storeBundle(t, st, "same", 0.621)
	diff := func(args ...string) (string, string, int) {
		return run(t, append([]string{"bundle", "diff", "--store-dir", st}, args...)...)
	}
	if stdout, stderr, code := diff(good, same); code != 0 || !strings.Contains(stdout, "same") || stderr != "" {
		t.Errorf("no regression: exit %d, %q, %q", code, stdout, stderr)
	}
	if stdout, stderr, code := diff(good, bad); code != 1 || !strings.Contains(stdout, "regression") || !strings.Contains(stderr, "1 regression(s)") {
		t.Errorf("regression: exit %d, %q, %q", code, stdout, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{good, bad, "--tolerance", "NaN"}, "--tolerance NaN: want a finite number >= 0"},
		{[]string{good, good, "--tolerance", "-0.01"}, "--tolerance -0.01"},
		{[]string{good, "0123456789abcdef01234567"}, "bundle 0123456789abcdef01234567"},
		{[]string{good}, "accepts 2 arg(s)"},
		{[]string{good, bad, "--tolerance", "x"}, "invalid argument"},
	} {
		_, stderr, code := diff(c.args...)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("diff %q: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
	// A NaN tolerance once called this collapse "better".
	stdout, _, _ := diff(good, bad, "-o", "json")
	var changes []compare.Change
	if err := json.Unmarshal([]byte(stdout), &changes); err != nil || len(changes) != 1 || changes[0].Verdict != "regression" {
		t.Errorf("diff -o json: %q, %v", stdout, err)
	}
}

// bundle get never deletes what is at --out unless told to.
func TestBundleGetKeepsExistingOutput(t *testing.T) {
	st := t.TempDir()
	id := storeBundle(t, st, "b", 0.5)
	dir := t.TempDir()
	file := writeFile(t, dir, "notes.txt", "mine")
	full := filepath.Join(dir, "full")
	writeFile(t, mkdir(t, full), "x", "mine")
	for _, out := range []string{file, full} {
		_, stderr, code := run(t, "bundle", "get", id, "--store-dir", st, "--out", out)
		if code != 1 || !strings.Contains(stderr, "--force replaces it") {
			t.Errorf("get --out %s: exit %d, %q", out, code, stderr)
		}
	}
	if data, _ := os.ReadFile(file); string(data) != "mine" {
		t.Fatalf("get without --force replaced %s", file)
	}
	if data, _ := os.ReadFile(filepath.Join(full, "x")); string(data) != "mine" {
		t.Fatalf("get without --force touched %s", full)
	}
	empty := mkdir(t, filepath.Join(dir, "empty"))
	for _, c := range []struct {
		out   string
		force bool
	}{{empty, false}, {file, true}, {full, true}} {
		args := []string{"bundle", "get", id, "--store-dir", st, "--out", c.out}
		if c.force {
			args = append(args, "--force")
		}
		if _, stderr, code := run(t, args...); code != 0 {
			t.Fatalf("%q: exit %d, %s", args, code, stderr)
		}
		entries, _ := os.ReadDir(c.out)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if strings.Join(names, " ") != "events.csv manifest.json report.md results.json" {
			t.Errorf("%q left %v", args, names)
		}
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*")); len(leftovers) != 0 {
		t.Errorf("temporary folders left beside --out: %v", leftovers)
	}
}

func mkdir(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// An --out no command can fill is one line naming it, and nothing is
// touched: the empty path, the current folder or one above it (even with
// --force), a folder whose parent does not exist.
func TestOutputFoldersThatCannotBeMade(t *testing.T) {
	st := t.TempDir()
	id := storeBundle(t, st, "b", 0.5)
	work := t.TempDir()
	writeFile(t, work, "keep.txt", "mine")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", ""}, "--out: give a folder to write into (the empty path names none)"},
		{[]string{"--out", "."}, "--out .: is the current folder or one above it; give a new folder inside it"},
		{[]string{"--out", ".", "--force"}, "--out .: is the current folder or one above it"},
		{[]string{"--out", "..", "--force"}, "--out ..: is the current folder or one above it"},
		{[]string{"--out", "/", "--force"}, "--out /: is the current folder or one above it"},
		{[]string{"--out", "missing/deeper/b"}, "--out missing/deeper/b: its parent folder missing/deeper does not exist (create it first)"},
	} {
		cmd := exec.Command(binary, append([]string{"bundle", "get", id, "--store-dir", st}, c.args...)...)
		cmd.Dir = work
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		oneErrorLine(t, stdout.String(), stderr.String(), exitCode(err), c.want)
	}
	if data, err := os.ReadFile(filepath.Join(work, "keep.txt")); err != nil || string(data) != "mine" {
		t.Fatalf("the current folder was touched: %v", err)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 1 {
		t.Errorf("left %d entries in the current folder", len(entries))
	}
}

func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
