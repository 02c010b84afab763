package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// referenceExpected are the files testdata/reference/make_reference.py
// writes.
var referenceExpected = []string{
	"gold.expected.json", "score.expected.json", "score-synthetic.expected.json",
	"sweep-eot.expected.json", "sweep-int.expected.json", "sweep-synthetic-eot.expected.json",
	"sweep-synthetic-int.expected.json", "sweep-synthetic-int-zeros.expected.json",
}

// The committed reference outputs are what TurnBench's own scorer gives
// for the committed inputs: make_reference.py, run on a checkout of the
// scorer (FLOORBENCH_TURNBENCH_SCORER, with the Python of its environment in
// FLOORBENCH_TURNBENCH_PYTHON, default python3), writes every expected file
// again, byte for byte. Skipped without a checkout: the scorer is not one
// of the tools scripts/setup.sh installs.
func TestReferenceRegenerates(t *testing.T) {
	scorer := os.Getenv("FLOORBENCH_TURNBENCH_SCORER")
	if scorer == "" {
		t.Skip("set FLOORBENCH_TURNBENCH_SCORER to a checkout of SesameAILabs/turnbench to regenerate testdata/reference")
	}
	python := os.Getenv("FLOORBENCH_TURNBENCH_PYTHON")
	if python == "" {
		python = "python3"
	}
	out := t.TempDir()
	cmd := exec.Command(python, referencePath("make_reference.py"), scorer, out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make_reference.py: %v\n%s", err, msg)
	}
	for _, name := range referenceExpected {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(referencePath(name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: the scorer's output differs from the committed file at byte %d:\n got  …%s\n want …%s", name, i, excerpt(got, i), excerpt(want, i))
		}
	}
}
