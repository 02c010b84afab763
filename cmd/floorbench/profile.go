package main

import (
	"fmt"
	"os"
	"runtime/pprof"
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
