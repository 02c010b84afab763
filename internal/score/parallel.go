package score

import (
	"runtime"
	"sync"
)

// chunks cuts [0, n) into at most GOMAXPROCS consecutive ranges of about
// equal size and runs fn on each in its own goroutine, returning when all
// are done. fn(i, lo, hi) gets its range's index i, in order, so that a
// caller that keeps one result per range and merges them by index gets
// the same result whatever the number of cores.
func chunks(n int, fn func(i, lo, hi int)) int {
	parts := cuts(n)
	chunksOf(n, parts, fn)
	return parts
}

// cuts is how many ranges chunks cuts [0, n) into.
func cuts(n int) int { return max(1, min(n, runtime.GOMAXPROCS(0))) }

// chunksOf is chunks with the number of ranges given: passes that must cut
// [0, n) alike (one counts what the next places) take it from one reading
// of GOMAXPROCS, which the runtime may change between them.
func chunksOf(n, parts int, fn func(i, lo, hi int)) {
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := i*n/parts, (i+1)*n/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(i, lo, hi)
		}()
	}
	wg.Wait()
}
