package viewer_test

import (
	"bytes"
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/inprocess"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep/sweepfixture"
	"github.com/floorbench/floorbench/internal/viewer"
)

// lockedBuffer is a log the server writes from its handlers' goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A bundle whose results.json changed after it was stored is never shown:
// the store the viewer reads checks it against its recorded sum, the page
// fails (502) and the server log names the key and both sums.
func TestViewerRefusesAChangedBundle(t *testing.T) {
	ctx := context.Background()
	specYAML, _ := sweepfixture.Spec(t)
	local, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := store.Summing{Store: local, Summed: keys.Summed, SumKey: keys.Sum, Named: keys.Named}
	id, err := inprocess.Run(ctx, sweepfixture.Resolved(t, specYAML), &activities.Activities{Store: st, Scratch: t.TempDir()}, activities.Admission{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(local.Root(), filepath.FromSlash(keys.BundleResults(id)))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var logged lockedBuffer
	srv := httptest.NewServer(viewer.New(st, log.New(&logged, "", 0), limits.Default()))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/bundles/" + id + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(logged.String(), "stored object "+keys.BundleResults(id)+" is corrupt: sha256 ") {
		t.Fatalf("a changed results.json: %d %s\nlog: %s", resp.StatusCode, body, logged.String())
	}
}
