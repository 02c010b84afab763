package quickstart_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/devserver"
	"github.com/floorbench/floorbench/internal/inprocess"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/quickstart"
	"github.com/floorbench/floorbench/internal/spec"
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

// The quickstart on its own dev server runs a spec file of one local
// corpus and one gate to its bundle: progress ends completed, the log
// names the server and the workers, the results hold the one system, and
// the bundle is where the quickstart says.
func TestQuickstartRunsASpecOnItsOwnServer(t *testing.T) {
	tools := filepath.Dir(filepath.Dir(testenv.Tool(t, "temporal", "temporal")))
	_, dirs := sweepfixture.Spec(t)
	specYAML := "name: one\ncorpora:\n  - {name: withdev, path: " + dirs[0] + "}\nsystems:\n  - {name: rms, builtin: rms}\nbootstrap: {resamples: 10, seed: 1}\n"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	storeDir := t.TempDir()
	var log bytes.Buffer
	var last temporalclient.Status
	res, where, err := quickstart.Run(ctx, quickstart.Options{
		Config: config.Config{StoreDir: storeDir}, StartTemporal: true, Tools: tools, SpecFile: writeSpec(t, specYAML),
		Progress: func(st temporalclient.Status) { last = st }}, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if last.State != "completed" || last.BundleID != res.BundleID || len(res.Evaluations) != 1 || res.Evaluations[0].System != "rms" {
		t.Errorf("last progress %+v; %d evaluations", last, len(res.Evaluations))
	}
	if where != storeDir+"/bundles/"+res.BundleID+"/" || !strings.Contains(log.String(), "starting a Temporal dev server on ") ||
		!strings.Contains(log.String(), "worker polling [floorbench-cpu floorbench-synth floorbench-gpu]") {
		t.Errorf("bundle at %s; log %s", where, log.String())
	}
	if _, err := os.Stat(filepath.Join(where, "results.json")); err != nil {
		t.Errorf("no results where the quickstart says: %v", err)
	}
}

// A quickstart whose dev server cannot start says where the Temporal CLI
// was looked for; one whose agent does not answer names the agent before
// anything is stored.
func TestQuickstartStopsBeforeItStarts(t *testing.T) {
	ctx := context.Background()
	_, dirs := sweepfixture.Spec(t)
	tools := t.TempDir()
	specYAML := "name: one\ncorpora:\n  - {name: withdev, path: " + dirs[0] + "}\nsystems:\n  - {name: rms, builtin: rms}\n"
	_, _, err := quickstart.Run(ctx, quickstart.Options{Config: config.Config{StoreDir: t.TempDir()}, StartTemporal: true, Tools: tools,
		SpecFile: writeSpec(t, specYAML)}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "no Temporal CLI at "+devserver.TemporalCLI(tools)) {
		t.Errorf("without a Temporal CLI: %v", err)
	}
	agentYAML := "name: agents\nagents:\n  - name: gone\n    protocol: duplex\n    endpoint: ws://" + testenv.Addr(testenv.FreePort(t)) +
		"/\n    concurrency: 1\n    repeats: 1\n    scenarios: {preset: tiny-agent, seed: 1}\n"
	storeDir := t.TempDir()
	_, _, err = quickstart.Run(ctx, quickstart.Options{Config: config.Config{StoreDir: storeDir}, SpecFile: writeSpec(t, agentYAML)}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "agents[0] (gone): ") {
		t.Errorf("an agent that does not answer: %v", err)
	}
	if entries, _ := os.ReadDir(storeDir); len(entries) != 0 {
		t.Errorf("the store was written before the agents were checked: %d entries", len(entries))
	}
}

// Preflight looks an agent's credential up by its credential_env first:
// one that is not set names the agent and the variable, not a value.
func TestPreflightNamesAMissingCredential(t *testing.T) {
	s, err := spec.Parse("agents", []byte("name: agents\nagents:\n  - name: keyed\n    protocol: duplex\n    endpoint: ws://127.0.0.1:1/\n"+
		"    credential_env: FLOORBENCH_TEST_NO_SUCH_KEY\n    concurrency: 1\n    repeats: 1\n    scenarios: {preset: tiny-agent, seed: 1}\n"), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	err = quickstart.PreflightAgents(context.Background(), s, config.Config{}.Credentials())
	if err == nil || !strings.HasPrefix(err.Error(), "agents[0] (keyed).credential_env: environment variable FLOORBENCH_TEST_NO_SUCH_KEY is not set") {
		t.Errorf("a missing credential: %v", err)
	}
}
