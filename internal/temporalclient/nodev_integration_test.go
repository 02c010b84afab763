package temporalclient_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/devserver"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/ingest/turnbench"
	"github.com/floorbench/floorbench/internal/ingest/turnbench/tbfixture"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/temporalclient"
	"github.com/floorbench/floorbench/internal/testenv"
)

// ingestTurnBenchTestOnly ingests three labelled TurnBench fixture
// dialogues, all of the test split (a corpus without dev data), into dir.
func ingestTurnBenchTestOnly(t *testing.T, dir string) {
	t.Helper()
	var convs []tbfixture.Conversation
	for i, kind := range []string{"casual", "debate", "interview"} {
		convs = append(convs, tbfixture.Dialogue(fmt.Sprintf("tb-%03d", 20+i), "test", kind, uint64(i), 20))
	}
	table, err := tbfixture.Build(convs)
	if err != nil {
		t.Fatal(err)
	}
	shard := filepath.Join(t.TempDir(), "test.parquet")
	if err := table.Write(shard); err != nil {
		t.Fatal(err)
	}
	if _, err := turnbench.Ingest(turnbench.Options{Parquet: []string{shard}, Out: dir}); err != nil {
		t.Fatal(err)
	}
}

// A sweep over an ingested TurnBench corpus without dev data and an MPTB
// corpus with it, with the Silero ONNX system, on a real Temporal dev
// server with an in-process worker and a local store: every
// system is evaluated on both corpora, and the TurnBench corpus is scored
// at the thresholds transferred from the MPTB corpus's dev split. With
// -record-histories its workflow histories (the sweep, the TurnBench
// corpus, Silero's evaluation on it) are saved for the replay test:
//
//	go test ./internal/temporalclient -run TestSweepWithoutDevDataOnONNX \
//	  -args -record-histories ../../workflows/testdata -history-prefix v5-nodev-
func TestSweepWithoutDevDataOnONNX(t *testing.T) {
	if testing.Short() {
		t.Skip("a sweep against real servers: skipped with -short")
	}
	testenv.Path(t, detect.SileroModelPath, "onnx")
	testenv.Path(t, detect.OnnxRuntimeLibraryPath, "onnx")
	ctx := deadline(t)
	srv, err := devserver.New(testenv.Tool(t, "temporal", "temporal"), t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	h := &harness{t: t, temp: srv, cfg: config.Config{TemporalAddress: srv.Address, Namespace: "default"}}
	local, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}

	root := t.TempDir()
	mptb, tb := filepath.Join(root, "mptb"), filepath.Join(root, "tb")
	if err := auditfixture.Write(mptb, auditfixture.Small(), 1); err != nil {
		t.Fatal(err)
	}
	ingestTurnBenchTestOnly(t, tb)
	s, err := spec.Parse("nodev-onnx", []byte(`name: nodev-onnx
corpora:
  - {name: mptb, path: `+mptb+`}
  - {name: tb, path: `+tb+`}
systems:
  - {name: rms, builtin: rms}
  - {name: silero, builtin: silero}
bootstrap: {resamples: 50, seed: 2}
concurrency: 2
`), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	rt := detect.RuntimeFromEnv()
	in, err := sweep.Resolve(s, rt)
	if err != nil {
		t.Fatal(err)
	}
	if err := activities.Upload(ctx, local, &in, rt); err != nil {
		t.Fatal(err)
	}
	cl, err := temporalclient.Dial(ctx, h.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	q := in.Spec.Queues
	ws, err := temporalclient.StartWorkers(cl, &activities.Activities{Store: local, Runtime: rt, Scratch: t.TempDir()},
		[]string{q.CPU, q.GPU, q.Synth}, q.CPU, activities.Admission{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Stop()
	run, err := temporalclient.Submit(ctx, cl, in)
	if err != nil {
		t.Fatal(err)
	}
	id := run.GetID()
	st := h.wait(ctx, id, nil)
	if *recordHistories != "" {
		h.saveHistories(ctx, id, "corpus-tb", "eval-silero-tb", "model-silero-tb")
	}

	data, err := store.GetBytes(ctx, local, keys.Bundle(st.BundleID, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res bundle.Results
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	own := map[string]evaluate.Evaluation{}
	var evaluated []string
	for _, e := range res.Evaluations {
		evaluated = append(evaluated, e.System+"@"+e.Corpus)
		if e.Corpus == "mptb" {
			own[e.System] = e
		}
	}
	if fmt.Sprint(evaluated) != "[rms@mptb silero@mptb rms@tb silero@tb]" {
		t.Fatalf("evaluations %v", evaluated)
	}
	transferred := 0
	for _, e := range res.Evaluations {
		if e.Corpus != "tb" {
			continue
		}
		for i, task := range e.Tasks {
			src := own[e.System].Tasks[i]
			if !src.HasOP {
				continue
			}
			transferred++
			if task.TransferredFrom != "mptb" || task.Theta != src.Theta {
				t.Errorf("%s on tb, %s: theta %v from %q; want %v from mptb", e.System, task.Task, task.Theta, task.TransferredFrom, src.Theta)
			}
		}
	}
	if transferred == 0 {
		t.Fatal("no operating point was transferred to the corpus without dev data")
	}
}
