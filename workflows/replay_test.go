package workflows

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplayRecordedHistories replays histories recorded from real runs
// (internal/temporalclient's integration tests with -record-histories, and
// cmd/floorbench's schedule tests with -record-nightly) against today's
// workflows: sweeps of the generated tiny corpus with acoustic systems, of
// an ingested TurnBench corpus without dev data scored at thresholds
// transferred from an MPTB corpus with Silero on ONNX Runtime (with its
// ModelWorkflow's history), two nightly runs (one that regressed, one
// whose system spec was gone), a sweep of the reference never-yield agent
// over duplex on tiny-agent, and a sweep of agents seated in the tiny
// corpus beside a detector (with its SeatedWorkflow's history). The
// file-name prefixes are the generations of the code that recorded them
// (docs/architecture.md#workflow-versions). A change to a workflow that
// would break running sweeps fails here.
// (internal/temporalclient's integration tests with -record-histories): the
// generated tiny corpus with acoustic systems (v3-), and an ingested
// TurnBench corpus without dev data scored at thresholds transferred from
// an MPTB corpus, with Silero on ONNX Runtime (v3-nodev-; v4-nodev- since
// the sweep executes a Plan and its transfer-ready signal carries the
// stored key, transferByKey; v5-nodev- since each model runs once per
// corpus in a ModelWorkflow, modelStages, whose history is kept too); and
// two nightly runs (cmd/floorbench's
// schedule tests with -record-nightly), one that regressed and one whose
// system spec was gone; and a sweep of one agent, the reference
// never-yield over duplex on tiny-agent (v5-agent-, internal/temporalclient's
// TestAgentSweepsThroughTemporal with -record-histories); and a sweep of
// agents seated in the tiny corpus beside a detector (v6-seated-, its
// SeatedWorkflow for the reference agent over duplex kept too;
// TestSeatedAgentsInASweepScoreAsTheOfflineDetector with
// -record-histories -history-prefix v6-). A change to a workflow that would break running
// sweeps fails here.
func TestReplayRecordedHistories(t *testing.T) {
	data, err := os.ReadFile("testdata/histories.json")
	if err != nil {
		t.Fatal(err)
	}
	var index map[string]string // file -> workflow id
	if err := json.Unmarshal(data, &index); err != nil || len(index) < 3 {
		t.Fatalf("testdata/histories.json: %v (%d histories)", err, len(index))
	}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflow(SweepWorkflow)
	r.RegisterWorkflow(CorpusWorkflow)
	r.RegisterWorkflow(EvaluationWorkflow)
	r.RegisterWorkflow(ModelWorkflow)
	r.RegisterWorkflow(NightlyWorkflow)
	r.RegisterWorkflow(AgentWorkflow)
	r.RegisterWorkflow(SeatedWorkflow)
	for file, id := range index {
		f, err := os.Open(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		history, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		err = r.ReplayWorkflowHistoryWithOptions(nil, history, worker.ReplayWorkflowHistoryOptions{
			OriginalExecution: workflow.Execution{ID: id, RunID: "recorded"}})
		if err != nil {
			t.Errorf("%s no longer replays: %v", file, err)
		}
	}
}
