package viewer_test

import (
	"context"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/inprocess"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/viewer"
)

// fixture is a local store holding two real bundles of the same sweep
// (different bootstrap seeds), with the corpora's audio and the systems'
// score tracks, made by running the sweep's activities in process.
type fixture struct {
	store    store.Store
	old, cur string // bundle ids
}

var (
	fixtureOnce sync.Once
	shared      fixture
	fixtureErr  error
)

// newFixture builds the store once per test binary.
func newFixture(t testing.TB) fixture {
	t.Helper()
	fixtureOnce.Do(func() {
		dir, err := mkdirTemp()
		if err != nil {
			fixtureErr = err
			return
		}
		shared, fixtureErr = buildFixture(dir)
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return shared
}

func buildFixture(root string) (fixture, error) {
	ctx := context.Background()
	dirs := []string{filepath.Join(root, "withdev"), filepath.Join(root, "nodev")}
	designs := []auditfixture.Design{
		{Dev: 2, Test: 3, Claims: []float64{3.5, 0.8}, Others: []float64{0.3}},
		{Test: 2, Claims: []float64{4.0}, Others: []float64{0.3}},
	}
	for i, d := range designs {
		if err := auditfixture.Write(dirs[i], d, uint64(i+1)); err != nil {
			return fixture{}, err
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "scratch"), 0o755); err != nil {
		return fixture{}, err
	}
	st, err := store.NewLocal(filepath.Join(root, "store"))
	if err != nil {
		return fixture{}, err
	}
	var ids []string
	for _, seed := range []string{"5", "6"} {
		yaml := `name: viewer-` + seed + `
corpora:
  - {name: withdev, path: ` + dirs[0] + `}
  - {name: nodev, path: ` + dirs[1] + `}
systems:
  - {name: rms-endpointer, builtin: rms-endpointer, params: {eot_ramp_s: "1"}}
  - {name: webrtcvad, builtin: webrtcvad, params: {mode: "3"}}
bootstrap: {resamples: 50, seed: ` + seed + `}
concurrency: 2
`
		s, err := spec.Parse("viewer", []byte(yaml), limits.Default())
		if err != nil {
			return fixture{}, err
		}
		in, err := sweep.Resolve(s, detect.Runtime{})
		if err != nil {
			return fixture{}, err
		}
		id, err := inprocess.Run(ctx, in, &activities.Activities{Store: st, Scratch: filepath.Join(root, "scratch")}, activities.Admission{})
		if err != nil {
			return fixture{}, err
		}
		ids = append(ids, id)
	}
	return fixture{st, ids[0], ids[1]}, nil
}

// server serves the fixture's store; what the viewer logs goes to the
// test log.
func (f fixture) server(t testing.TB) *httptest.Server {
	srv := httptest.NewServer(viewer.New(f.store, log.New(testWriter{t}, "viewer: ", 0), limits.Default()))
	t.Cleanup(srv.Close)
	return srv
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
