//go:build !floorbench_light

package main

import (
	"os"
	"runtime/debug"
)

// sweepGCPercent is the garbage collector's target for a process that
// runs a sweep's activities (a worker, submit --in-process): collect
// when the heap has grown by half its live size instead of doubling it.
// Its peak is then about 1.5 times what its running activities hold (the
// tracks of the evaluations running at once) instead of twice, for about
// 1% more CPU: the collector's marking took 1.4% of the lab-scale sweep's
// CPU profile at the default (docs/performance.md#profile-by-stage).
const sweepGCPercent = 50

// collectForSweeps sets sweepGCPercent unless GOGC is set, which wins.
func collectForSweeps() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(sweepGCPercent)
	}
}
