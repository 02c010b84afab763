package workflows

import (
	"sync"
	"time"
)

// inFlight counts the activities in flight and the most at once. The
// first to enter waits until a second has entered (for at most a minute,
// so that a regression to one at a time fails the test's assertion on
// most instead of hanging it): with a concurrency of 2 or more, most is
// then the concurrency exactly, whatever the machine's speed.
type inFlight struct {
	mu       sync.Mutex
	n, most  int
	entered  int
	met      chan struct{}
	meetOnce sync.Once
}

func newInFlight() *inFlight { return &inFlight{met: make(chan struct{})} }

// enter counts one more activity in flight.
func (f *inFlight) enter() {
	f.mu.Lock()
	f.n++
	f.most = max(f.most, f.n)
	f.entered++
	first := f.entered == 1
	if f.n >= 2 {
		f.meetOnce.Do(func() { close(f.met) })
	}
	f.mu.Unlock()
	if first {
		select {
		case <-f.met:
		case <-time.After(time.Minute):
		}
	}
}

// leave counts one fewer.
func (f *inFlight) leave() {
	f.mu.Lock()
	f.n--
	f.mu.Unlock()
}

// mostAtOnce is the most activities that were in flight at once.
func (f *inFlight) mostAtOnce() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.most
}
