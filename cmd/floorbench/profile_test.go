package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

func TestCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	stop, err := startCPUProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Work enough for the profiler to see it.
	x := 0
	for i := range 200_000_000 {
		x ^= i * i
	}
	_ = x
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("%s is not a CPU profile: %v", path, err)
	}
	if len(p.Sample) == 0 {
		t.Errorf("%s has no samples", path)
	}
}

func TestCPUProfileOff(t *testing.T) {
	stop, err := startCPUProfile("")
	if err != nil || stop() != nil {
		t.Fatalf("an empty path profiles nothing: %v", err)
	}
}

func TestCPUProfileBadPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "cpu.pprof")
	_, err := startCPUProfile(path)
	if err == nil || !strings.Contains(err.Error(), cpuProfileEnv) || !strings.Contains(err.Error(), path) {
		t.Fatalf("want an error naming %s and %s, got %v", cpuProfileEnv, path, err)
	}
}
