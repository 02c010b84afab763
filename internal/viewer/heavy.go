package viewer

import (
	"net/http"
	"runtime"
	"time"
)

// Requests that read audio or draw a figure (an audio channel or mix, a
// timeline, a figure, a trend) cost memory and CPU in proportion to what
// they read; at most maxHeavy of them run at once, so the viewer's memory
// stays bounded however many readers it has (docs/operations.md#the-viewer).
// The others wait their turn, up to heavyWait, and then get 503 with
// Retry-After: a reader's browser tries again, a flood gets nowhere.
var maxHeavy = max(2, runtime.GOMAXPROCS(0))

// heavyWait is how long a heavy request waits for its turn.
const heavyWait = 10 * time.Second

// heavy runs h when a slot is free.
func (s *Server) heavy(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		run := func() {
			defer func() { <-s.slots }()
			h(w, r)
		}
		// A free slot always runs the request: without this first try, a
		// request held up longer than heavyWait before its select (a loaded
		// machine) would find the timer fired too and be refused half the
		// time.
		select {
		case s.slots <- struct{}{}:
			run()
			return
		default:
		}
		t := time.NewTimer(s.heavyWait)
		defer t.Stop()
		select {
		case s.slots <- struct{}{}:
			run()
		case <-t.C:
			w.Header().Set("Retry-After", "1")
			s.fail(w, http.StatusServiceUnavailable, "The viewer is busy drawing and playing for other readers; try again in a moment.")
		case <-r.Context().Done():
		}
	}
}
