package testenv

import (
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
)

// bubbles counts the bubbles running under the race detector, so that the
// last one to end restores GOMAXPROCS whichever order they end in.
var bubbles struct {
	sync.Mutex
	n    int
	prev int
}

// Synctest runs f in a testing/synctest bubble, as synctest.Test does.
// Under the race detector the bubble runs on one P: timers of a bubble
// that fire on several Ps at once corrupt ThreadSanitizer's own state
// (golang/go#78156: "ThreadSanitizer: CHECK failed", seen here as
// tsan_rtl.cpp:346 in a CI run of the agent packages). The detector
// finds races by happens-before, not by goroutines running at the same
// instant, so one P hides none, and the bubble's fake clock makes what a
// test decides independent of how many Ps run it.
func Synctest(t *testing.T, f func(*testing.T)) {
	t.Helper()
	if raceEnabled {
		bubbles.Lock()
		if bubbles.n == 0 {
			bubbles.prev = runtime.GOMAXPROCS(1)
		}
		bubbles.n++
		bubbles.Unlock()
		defer func() {
			bubbles.Lock()
			bubbles.n--
			if bubbles.n == 0 {
				runtime.GOMAXPROCS(bubbles.prev)
			}
			bubbles.Unlock()
		}()
	}
	synctest.Test(t, f)
}
