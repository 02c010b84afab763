package temporalclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/sweep/sweepfixture"
	"github.com/floorbench/floorbench/internal/temporalclient"
	"github.com/floorbench/floorbench/workflows"
)

// recordedSweep answers the client calls of Submit, GetStatus and Watch for
// one closed sweep from its history, recorded on a real server
// (workflows/testdata), as that server answers them: the sweep is
// completed, its history is the recording, its result the completion
// event's, and starting it again finds it already started. Any other call
// panics (the embedded client is nil).
type recordedSweep struct {
	client.Client
	id     string
	events []*historypb.HistoryEvent
}

func loadRecordedSweep(t *testing.T, file string) *recordedSweep {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "workflows", "testdata", "histories.json"))
	if err != nil {
		t.Fatal(err)
	}
	var index map[string]string
	if err := json.Unmarshal(data, &index); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("..", "..", "workflows", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return &recordedSweep{id: index[file], events: h.GetEvents()}
}

func (r *recordedSweep) last() *historypb.HistoryEvent { return r.events[len(r.events)-1] }

func (r *recordedSweep) DescribeWorkflow(_ context.Context, id, _ string) (*client.WorkflowExecutionDescription, error) {
	if id != r.id {
		return nil, serviceerror.NewNotFound("workflow " + id + " not found")
	}
	status := enums.WORKFLOW_EXECUTION_STATUS_RUNNING
	if r.last().GetEventType() == enums.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED {
		status = enums.WORKFLOW_EXECUTION_STATUS_COMPLETED
	}
	return &client.WorkflowExecutionDescription{WorkflowExecutionMetadata: client.WorkflowExecutionMetadata{Status: status}}, nil
}

func (r *recordedSweep) GetWorkflowHistory(_ context.Context, id, _ string, _ bool, _ enums.HistoryEventFilterType) client.HistoryEventIterator {
	return &eventIterator{events: r.events}
}

func (r *recordedSweep) GetWorkflow(_ context.Context, id, runID string) client.WorkflowRun {
	return recordedRun{r: r, id: id, runID: runID}
}

func (r *recordedSweep) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, _ any, _ ...any) (client.WorkflowRun, error) {
	if o.ID != r.id {
		return nil, serviceerror.NewInvalidArgument("this recording holds " + r.id + ", not " + o.ID)
	}
	return nil, serviceerror.NewWorkflowExecutionAlreadyStarted("already started", "", "recorded")
}

type eventIterator struct{ events []*historypb.HistoryEvent }

func (it *eventIterator) HasNext() bool { return len(it.events) > 0 }
func (it *eventIterator) Next() (*historypb.HistoryEvent, error) {
	e := it.events[0]
	it.events = it.events[1:]
	return e, nil
}

type recordedRun struct {
	r         *recordedSweep
	id, runID string
}

func (run recordedRun) GetID() string                  { return run.id }
func (run recordedRun) GetRunID() string               { return run.runID }
func (run recordedRun) GetFirstExecutionRunID() string { return run.runID }
func (run recordedRun) Get(_ context.Context, v any) error {
	a := run.r.last().GetWorkflowExecutionCompletedEventAttributes()
	if a == nil {
		return errors.New("the recorded sweep did not complete")
	}
	return converter.GetDefaultDataConverter().FromPayloads(a.GetResult(), v)
}
func (run recordedRun) GetWithOptions(ctx context.Context, v any, _ client.WorkflowRunGetOptions) error {
	return run.Get(ctx, v)
}

// The status of a completed sweep, read from its recorded history: the
// integration test's sweep (the tiny preset's 12 conversations, two
// systems, one corpus) counts 12 conversations, 24 tracks of each task and
// 2 evaluations, all done, with the bundle its result names. Watch shows
// that status once and returns it; submitting the same sweep again finds
// the recorded run instead of starting one.
func TestStatusOfARecordedSweep(t *testing.T) {
	ctx := context.Background()
	cl := loadRecordedSweep(t, "v3-sweep-history.json")
	var in sweep.Input
	started := cl.events[0].GetWorkflowExecutionStartedEventAttributes()
	if err := converter.GetDefaultDataConverter().FromPayloads(started.GetInput(), &in); err != nil {
		t.Fatal(err)
	}
	// The recording stands under the id its input has today: the ids of
	// recorded runs predate the current identity
	// (docs/architecture.md#identities-and-versions).
	id, err := in.Spec.WorkflowID()
	if err != nil {
		t.Fatal(err)
	}
	cl.id = id
	var shown []temporalclient.Status
	st, err := temporalclient.Watch(ctx, cl, cl.id, 0, func(s temporalclient.Status) { shown = append(shown, s) })
	if err != nil {
		t.Fatal(err)
	}
	var res sweep.Result
	if err := (recordedRun{r: cl}).Get(ctx, &res); err != nil || res.BundleID == "" {
		t.Fatalf("recorded result %+v, %v", res, err)
	}
	want := temporalclient.Progress{Phase: "done", BundleID: res.BundleID, Systems: 2,
		ConversationsGenerated: 12, ConversationsTotal: 12, TracksInferred: 24, TracksTotal: 24, SystemsScored: 2, SystemsTotal: 2}
	if st.State != "completed" || st.BundleID != res.BundleID || st.ID != cl.id || !equalProgress(st.Progress, want) {
		t.Errorf("status %+v, want completed with %+v", st, want)
	}
	if len(shown) != 1 || shown[0].State != "completed" {
		t.Errorf("Watch showed %+v, want the completed status once", shown)
	}

	run, err := temporalclient.Submit(ctx, cl, in)
	if err != nil || run.GetID() != cl.id || run.GetRunID() != "recorded" {
		t.Errorf("resubmission: %v, %v; want the recorded run", run, err)
	}
	if _, err := temporalclient.GetStatus(ctx, cl, "floorbench-sweep-none"); err == nil {
		t.Error("the status of an unknown sweep: no error")
	}
}

func equalProgress(a, b temporalclient.Progress) bool {
	return a.Phase == b.Phase && a.BundleID == b.BundleID && a.Systems == b.Systems &&
		a.ConversationsGenerated == b.ConversationsGenerated && a.ConversationsTotal == b.ConversationsTotal &&
		a.TracksInferred == b.TracksInferred && a.TracksTotal == b.TracksTotal &&
		a.SystemsScored == b.SystemsScored && a.SystemsTotal == b.SystemsTotal && len(a.Running) == len(b.Running)
}

// testsuiteSweep answers GetStatus's calls for a sweep running in the
// SDK's test environment (real workflows, real activities on a local
// store): the sweep is running until the environment completes it, and
// its progress query is the workflow's own. Children are not reachable
// through the environment, so their queries fail, as a child that has not
// started yet fails them.
type testsuiteSweep struct {
	client.Client
	env *testsuite.TestWorkflowEnvironment
	id  string
}

func (c *testsuiteSweep) DescribeWorkflow(_ context.Context, id, _ string) (*client.WorkflowExecutionDescription, error) {
	status := enums.WORKFLOW_EXECUTION_STATUS_RUNNING
	if c.env.IsWorkflowCompleted() {
		status = enums.WORKFLOW_EXECUTION_STATUS_COMPLETED
	}
	return &client.WorkflowExecutionDescription{WorkflowExecutionMetadata: client.WorkflowExecutionMetadata{Status: status}}, nil
}

func (c *testsuiteSweep) QueryWorkflow(_ context.Context, id, _ string, query string, args ...any) (converter.EncodedValue, error) {
	if id != c.id {
		return nil, serviceerror.NewNotFound("child " + id + " is not in the test environment")
	}
	return c.env.QueryWorkflow(query, args...)
}

// The status of the fixture sweep as it starts, running in the SDK's test
// environment: running, in its corpora phase, with the spec's 2 systems
// on 2 corpora to score and nothing done yet.
func TestStatusOfARunningSweep(t *testing.T) {
	ctx := context.Background()
	specYAML, _ := sweepfixture.Spec(t)
	in := sweepfixture.Resolved(t, specYAML)
	id, err := in.Spec.WorkflowID()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	// Not the environment's 3 s of wall time for a step: the race
	// detector on a loaded machine outlasts it.
	env.SetTestTimeout(10 * time.Minute)
	env.RegisterWorkflow(workflows.SweepWorkflow)
	env.RegisterWorkflow(workflows.CorpusWorkflow)
	env.RegisterWorkflow(workflows.EvaluationWorkflow)
	env.RegisterActivity(&activities.Activities{Store: st, Scratch: t.TempDir()})
	cl := &testsuiteSweep{env: env, id: id}
	var running temporalclient.Status
	var statusErr error
	env.RegisterDelayedCallback(func() {
		running, statusErr = temporalclient.GetStatus(ctx, cl, id)
		env.CancelWorkflow()
	}, time.Millisecond)
	env.ExecuteWorkflow(workflows.SweepWorkflow, in)
	if statusErr != nil {
		t.Fatal(statusErr)
	}
	p := running.Progress
	if running.State != "running" || p.Systems != 2 || p.SystemsTotal != 4 || p.Phase == "" || p.Phase == "waiting for a worker" || p.Running != nil {
		t.Errorf("status %+v, want running with 2 systems on 2 corpora", running)
	}
}

// runningSweep answers GetStatus for a sweep that runs for polls
// describes, with children running evaluations, then fails.
type runningSweep struct {
	client.Client
	id       string
	children int
	polls    int
	queried  []string // the children queried, in order
}

func (r *runningSweep) DescribeWorkflow(_ context.Context, id, _ string) (*client.WorkflowExecutionDescription, error) {
	status := enums.WORKFLOW_EXECUTION_STATUS_FAILED
	if r.polls > 0 {
		r.polls--
		status = enums.WORKFLOW_EXECUTION_STATUS_RUNNING
	}
	return &client.WorkflowExecutionDescription{WorkflowExecutionMetadata: client.WorkflowExecutionMetadata{Status: status}}, nil
}

func (r *runningSweep) QueryWorkflow(_ context.Context, id, _, _ string, _ ...any) (converter.EncodedValue, error) {
	if id != r.id {
		r.queried = append(r.queried, id)
		return encoded{workflows.ChildProgress{Total: 10, Done: 1}}, nil
	}
	p := workflows.Progress{Phase: "evaluation"}
	for i := range r.children {
		p.Running = append(p.Running, workflows.Child{ID: fmt.Sprintf("%s/eval-%d", r.id, i), Kind: workflows.ChildEvaluation})
	}
	return encoded{p}, nil
}

func (r *runningSweep) GetWorkflow(context.Context, string, string) client.WorkflowRun {
	return failedRun{}
}

type failedRun struct{ client.WorkflowRun }

func (failedRun) Get(context.Context, any) error { return errors.New("the sweep failed") }

// encoded is a query's answer.
type encoded struct{ v any }

func (e encoded) HasValue() bool { return true }
func (e encoded) Get(v any) error {
	raw, err := json.Marshal(e.v)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// Watch asks at most one request a second: a poll of a sweep with 12
// running evaluations describes it, queries it and queries one child, the
// one asked longest ago, and waits 3 s, not the 500 ms asked; the children
// it did not query count as they last answered. A poll with no child
// running makes two requests and waits 2 s.
func TestWatchSpacesItsQueries(t *testing.T) {
	for _, tc := range []struct {
		children, polls int
		want            time.Duration
		tracks          []int
		queried         []int
	}{
		{12, 14, 3 * time.Second, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12, 12, 0}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 1}},
		{0, 3, 2 * time.Second, []int{0, 0, 0, 0}, nil},
	} {
		var waits []time.Duration
		defer temporalclient.SetWatchWait(func(_ context.Context, d time.Duration) error {
			waits = append(waits, d)
			return nil
		})()
		cl := &runningSweep{id: "floorbench-sweep-x", children: tc.children, polls: tc.polls}
		var tracks []int
		st, err := temporalclient.Watch(context.Background(), cl, cl.id, 500*time.Millisecond, func(s temporalclient.Status) {
			tracks = append(tracks, s.Progress.TracksInferred)
		})
		if err != nil || st.State != "failed" || st.Error != "the sweep failed" {
			t.Fatalf("%d children: Watch returned %+v, %v", tc.children, st, err)
		}
		if want := slices.Repeat([]time.Duration{tc.want}, tc.polls); !slices.Equal(waits, want) {
			t.Errorf("%d children: waits %v, want %v", tc.children, waits, want)
		}
		if !slices.Equal(tracks, tc.tracks) {
			t.Errorf("%d children: tracks shown %v, want %v", tc.children, tracks, tc.tracks)
		}
		var queried []int
		for _, id := range cl.queried {
			var i int
			if _, err := fmt.Sscanf(id, cl.id+"/eval-%d", &i); err != nil {
				t.Fatalf("queried %q", id)
			}
			queried = append(queried, i)
		}
		if !slices.Equal(queried, tc.queried) {
			t.Errorf("%d children: queried children %v, want %v", tc.children, queried, tc.queried)
		}
	}
}

// status asks every running child, each time.
func TestStatusQueriesEveryChild(t *testing.T) {
	cl := &runningSweep{id: "floorbench-sweep-x", children: 12, polls: 2}
	for range 2 {
		st, err := temporalclient.GetStatus(context.Background(), cl, cl.id)
		if err != nil || st.Progress.TracksInferred != 12 {
			t.Fatalf("GetStatus returned %+v, %v; want 12 tracks", st, err)
		}
	}
	if len(cl.queried) != 24 {
		t.Errorf("two statuses queried %d children, want 24", len(cl.queried))
	}
}
