package viewer

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
)

// While every heavy slot is taken, a heavy request waits its turn and
// then is turned away with 503 and Retry-After, without running; a light
// page is served meanwhile.
func TestHeavyRequestsTakeTurns(t *testing.T) {
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := New(st, log.New(io.Discard, "", 0), limits.Default())
	s.heavyWait = time.Millisecond
	for range cap(s.slots) {
		s.slots <- struct{}{}
	}
	ran := false
	h := s.heavy(func(http.ResponseWriter, *http.Request) { ran = true })
	rec := httptest.NewRecorder()
	h(rec, httptest.NewRequest("GET", "/bundles/x/audio", nil))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" || ran {
		t.Errorf("busy: %d, Retry-After %q, ran %v", rec.Code, rec.Header().Get("Retry-After"), ran)
	}
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("the bundle list while busy: %d", rec.Code)
	}
	<-s.slots
	rec = httptest.NewRecorder()
	h(rec, httptest.NewRequest("GET", "/bundles/x/audio", nil))
	if !ran {
		t.Errorf("a free slot did not run the request: %d", rec.Code)
	}
}
