package quickstart_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/inprocess"
	"github.com/floorbench/floorbench/internal/quickstart"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep/sweepfixture"
	"github.com/floorbench/floorbench/internal/temporalclient"
	"github.com/floorbench/floorbench/internal/testenv"
)

func writeSpec(t *testing.T, specYAML string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sweep.yaml")
	if err := os.WriteFile(path, []byte(specYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A quickstart pointed at a Temporal that does not answer fails with one
// error naming the address, after the local corpora are in the store.
func TestQuickstartWithoutTemporal(t *testing.T) {
	specYAML, dirs := sweepfixture.Spec(t)
	storeDir := t.TempDir()
	addr := testenv.Addr(testenv.FreePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var log bytes.Buffer
	_, _, err := quickstart.Run(ctx, quickstart.Options{
		Config:   config.Config{TemporalAddress: addr, Namespace: "default", StoreDir: storeDir},
		SpecFile: writeSpec(t, specYAML)}, &log)
	if err == nil || !strings.Contains(err.Error(), "cannot reach Temporal at "+addr) {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(filepath.Join(storeDir, "corpora", sweepfixture.ManifestHash(t, dirs[0]), "corpus.json")); err != nil {
		t.Errorf("the corpus was not uploaded first: %v", err)
	}
	_, _, err = quickstart.Run(ctx, quickstart.Options{SpecFile: filepath.Join(t.TempDir(), "none.yaml")}, &log)
	if err == nil || !strings.Contains(err.Error(), "none.yaml") {
		t.Errorf("a missing spec file: %v", err)
	}
}

// The quickstart on its own dev server and in-process worker runs the
// fixture sweep to the same bundle, with the same evaluations byte for
// byte, as the plan run in process without Temporal.
func TestQuickstartMatchesInProcessRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	tools := filepath.Dir(filepath.Dir(testenv.Tool(t, "temporal", "temporal")))
	specYAML, _ := sweepfixture.Spec(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	storeDir := t.TempDir()
	var log bytes.Buffer
	var states []string
	res, where, err := quickstart.Run(ctx, quickstart.Options{
		Config: config.Config{StoreDir: storeDir}, StartTemporal: true, Tools: tools, SpecFile: writeSpec(t, specYAML),
		Progress: func(st temporalclient.Status) { states = append(states, st.State) }}, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if len(states) == 0 || states[len(states)-1] != "completed" {
		t.Errorf("progress states %q", states)
	}
	if !strings.HasPrefix(where, storeDir+"/bundles/"+res.BundleID) || !strings.Contains(log.String(), "starting a Temporal dev server on ") {
		t.Errorf("bundle at %s; log %s", where, log.String())
	}

	local, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	id, err := inprocess.Run(ctx, sweepfixture.Resolved(t, specYAML), &activities.Activities{Store: local, Scratch: t.TempDir()}, activities.Admission{})
	if err != nil || id != res.BundleID {
		t.Fatalf("in process: bundle %s, %v; want %s", id, err, res.BundleID)
	}
	viaTemporal, err := store.NewLocal(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := local.List(ctx, "evaluations/")
	if err != nil || len(keys) != 4 {
		t.Fatalf("evaluations %q, %v", keys, err)
	}
	for _, k := range keys {
		a, err1 := store.GetBytes(ctx, local, k)
		b, err2 := store.GetBytes(ctx, viaTemporal, k)
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the runs: %v, %v", k, err1, err2)
		}
	}
}
