package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

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

// The heap profile holds what is held at the peak, and the log a line a
// second of the process's memory and CPU. The sampler ticks on the fake
// clock of a synctest bubble: the test's 2.5 s pass as soon as the
// sampler waits for its next tick.
func TestHeapProfileAtThePeak(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.pprof")
	synctest.Test(t, func(t *testing.T) {
		stop, err := startHeapProfile(path)
		if err != nil {
			t.Fatal(err)
		}
		held := make([][]byte, 64)
		for i := range held {
			held[i] = make([]byte, 1<<20)
		}
		runtime.GC() // a heap profile shows what the last collection found held
		time.Sleep(2500 * time.Millisecond)
		runtime.KeepAlive(held)
		if err := stop(); err != nil {
			t.Fatal(err)
		}
	})
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("%s is not a heap profile: %v", path, err)
	}
	var inuse int64
	for _, s := range p.Sample {
		inuse += s.Value[3] // inuse_space
	}
	if inuse < 48<<20 { // the profile samples allocations and scales them up
		t.Errorf("%s holds %d bytes in use, want about the 64 MiB held", path, inuse)
	}
	log, err := os.ReadFile(path + ".log")
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(log)), "\n"); len(lines) < 3 || lines[0] != "s\trss_mb\theap_alloc_mb\theap_held_mb\tcpu_s" {
		t.Errorf("%s.log: %q", path, log)
	}
}
