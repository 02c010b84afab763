package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/floorbench/floorbench/internal/atomicfile"
)

// cpuProfileEnv names the file a command writes its CPU profile to, for
// finding where a worker's or an in-process sweep's time goes
// (docs/operations.md#profiling).
const cpuProfileEnv = "FLOORBENCH_CPU_PROFILE"

// startCPUProfile profiles the process into path until the returned stop;
// an empty path profiles nothing.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("%s=%s: %w", cpuProfileEnv, path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("%s=%s: %w", cpuProfileEnv, path, err)
		}
		return nil
	}, nil
}

// heapProfileEnv names the file a command writes its heap profile to
// whenever its resident set or the heap's allocated bytes reach a new
// high (by 5%, checked every second), so the file holds what was held
// about the process's peak;
// PATH.log beside it gets one line a second: seconds since start,
// resident set, the heap's allocated bytes, the heap the Go runtime holds
// from the system (what of the resident set is Go's: the rest is C
// memory, ONNX Runtime's, and the executable), and CPU seconds so far
// (docs/operations.md#profiling).
const heapProfileEnv = "FLOORBENCH_HEAP_PROFILE"

// startHeapProfile samples the process into path and path.log until the
// returned stop; an empty path samples nothing.
func startHeapProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	log, err := os.Create(path + ".log")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", heapProfileEnv, err)
	}
	fmt.Fprintln(log, "s\trss_mb\theap_alloc_mb\theap_held_mb\tcpu_s")
	done, stopped := make(chan struct{}), make(chan error, 1)
	go func() { stopped <- sampleHeap(path, log, done) }()
	return func() error {
		close(done)
		err := <-stopped
		if cerr := log.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s=%s: %w", heapProfileEnv, path, err)
		}
		return nil
	}, nil
}

// sampleHeap writes a line to log every second and the heap profile to
// path at every new high (by 5%) of the resident set or of the heap,
// until done.
func sampleHeap(path string, log io.Writer, done <-chan struct{}) error {
	start := time.Now()
	var highHeap uint64
	var highRSS int
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return nil
		case <-tick.C:
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap := ms.HeapAlloc
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		rss := residentMB()
		fmt.Fprintf(log, "%.0f\t%d\t%d\t%d\t%.1f\n", time.Since(start).Seconds(), rss, heap>>20, (ms.HeapSys-ms.HeapReleased)>>20, cpu.Seconds())
		if heap <= highHeap+highHeap/20 && rss <= highRSS+highRSS/20 {
			continue
		}
		highHeap, highRSS = max(highHeap, heap), max(highRSS, rss)
		if err := writeHeapProfile(path); err != nil {
			return err
		}
	}
}

// writeHeapProfile replaces path with the heap profile of the moment,
// whole or not at all.
func writeHeapProfile(path string) error {
	return atomicfile.Write(path, ".", func(w io.Writer) error { return pprof.Lookup("heap").WriteTo(w, 0) })
}

// residentMB is the process's resident set in MB, from /proc (0 where
// there is none).
func residentMB() int {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, resident int
	if _, err := fmt.Sscan(string(b), &size, &resident); err != nil {
		return 0
	}
	return resident * os.Getpagesize() >> 20
}
