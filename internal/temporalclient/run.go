package temporalclient

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/names"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/workflows"
)

// QueueNames reads `worker --queues`: each entry is a kind (cpu, gpu,
// synth), polling the default queue of that kind in q, or KIND=NAME,
// polling the task queue NAME for that kind (a spec's queues: section may
// name its own). It returns the queues to poll and the one that also runs
// the workflows (the cpu kind's; "" when the worker polls no cpu queue).
func QueueNames(entries []string, q spec.Queues) (queues []string, workflowQueue string, err error) {
	for _, e := range entries {
		kind, name, named := strings.Cut(e, "=")
		def := map[string]string{"cpu": q.CPU, "gpu": q.GPU, "synth": q.Synth}[kind]
		if def == "" {
			return nil, "", fmt.Errorf("--queues %q: unknown kind %q (want cpu, gpu or synth, optionally =QUEUE_NAME)", e, kind)
		}
		if !named {
			name = def
		}
		if !queueName.Match(name) {
			return nil, "", fmt.Errorf("--queues %q: queue name %q: want 1-200 letters, digits, '.', '_' or '-'", e, name)
		}
		if slices.Contains(queues, name) {
			return nil, "", fmt.Errorf("--queues: queue %q named twice", name)
		}
		if kind == "cpu" {
			workflowQueue = name
		}
		queues = append(queues, name)
	}
	return queues, workflowQueue, nil
}

var queueName = names.Plain(200)

// Workers polls task queues with the activities; the workflows run on the
// CPU queue (docs/architecture.md#task-queues: the sweep is submitted there).
type Workers struct {
	workers []worker.Worker
}

// StartWorkers starts one worker per queue, each admitting work as ad
// says (Admission: its slots, its memory budget). workflowQueue also gets
// the workflows; "" registers none (a GPU-only node).
func StartWorkers(cl client.Client, acts *activities.Activities, queues []string, workflowQueue string, ad activities.Admission) (*Workers, error) {
	ws := &Workers{}
	acts = ad.Admitting(acts)
	for _, q := range queues {
		w := worker.New(cl, q, worker.Options{MaxConcurrentActivityExecutionSize: ad.PerQueue()})
		if q == workflowQueue {
			workflows.Register(w)
		}
		w.RegisterActivity(acts)
		if err := w.Start(); err != nil {
			ws.Stop()
			return nil, fmt.Errorf("worker on %s: %w", q, err)
		}
		ws.workers = append(ws.workers, w)
	}
	return ws, nil
}

// Stop stops every worker, waiting for running activities to return.
func (ws *Workers) Stop() {
	for _, w := range ws.workers {
		w.Stop()
	}
}

// Submit starts the sweep, or finds the run already started for the same
// spec (the workflow id is the hash of the normalised spec): resubmitting
// never starts a second run.
func Submit(ctx context.Context, cl client.Client, in sweep.Input) (client.WorkflowRun, error) {
	id, err := in.Spec.WorkflowID()
	if err != nil {
		return nil, err
	}
	opts := client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                in.Spec.Queues.CPU,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}
	run, err := cl.ExecuteWorkflow(ctx, opts, workflows.SweepWorkflow, in)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return cl.GetWorkflow(ctx, id, started.RunId), nil
	}
	return run, err
}

// Progress is the sweep workflow's progress report.
type Progress = workflows.Progress

// AgentProgress is one agent evaluation's progress in a sweep's.
type AgentProgress = workflows.AgentProgress

// phaseNoWorker is shown when no worker answered the progress query.
const phaseNoWorker = "waiting for a worker"

// Status is a sweep's progress and, when finished, its outcome.
type Status struct {
	ID       string             `json:"workflow_id"`
	State    string             `json:"state"`
	Progress workflows.Progress `json:"progress"`
	BundleID string             `json:"bundle_id,omitempty"`
	Error    string             `json:"error,omitempty"`
}

// GetStatus describes a sweep; running ones are queried for progress,
// with every running child.
func GetStatus(ctx context.Context, cl client.Client, id string) (Status, error) {
	st, _, err := getStatus(ctx, cl, id, nil)
	return st, err
}

// getStatus is GetStatus, also telling how many requests it made of the
// server (a describe, a query of the sweep and one of each child queried).
// With children, it queries only the children children picks and counts
// the others as they last answered; without, it queries them all.
func getStatus(ctx context.Context, cl client.Client, id string, children *childPolls) (st Status, requests int, err error) {
	st = Status{ID: id}
	desc, err := cl.DescribeWorkflow(ctx, id, "")
	requests++
	if err != nil {
		return st, requests, fmt.Errorf("sweep %s: %w", id, err)
	}
	st.State = stateName(desc.Status)
	if desc.WorkflowType.Name == nightlyWorkflowType {
		var n int
		st, n, err = nightlyStatus(ctx, cl, st, children)
		return st, requests + n, err
	}
	switch desc.Status {
	case enums.WORKFLOW_EXECUTION_STATUS_RUNNING:
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		v, err := cl.QueryWorkflow(qctx, id, "", workflows.ProgressQuery)
		requests++
		if err == nil {
			err = v.Get(&st.Progress)
		}
		if err != nil {
			st.Progress.Phase = phaseNoWorker
			break
		}
		requests += addRunning(qctx, cl, &st.Progress, children)
	case enums.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		var res sweep.Result
		if err := cl.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil {
			return st, requests, err
		}
		p, err := finalProgress(ctx, cl, id)
		if err != nil {
			return st, requests, fmt.Errorf("sweep %s: %w", id, err)
		}
		st.Progress = p
		st.BundleID, st.Progress.Phase, st.Progress.BundleID = res.BundleID, "done", res.BundleID
	default:
		if err := cl.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
			st.Error = sweep.FailureMessage(err)
		}
	}
	return st, requests, nil
}

// nightlyWorkflowType is the name NightlyWorkflow is registered under.
const nightlyWorkflowType = "NightlyWorkflow"

// nightlyStatus describes a scheduled run by its sweep (the child
// id/sweep): before the sweep starts the run is resolving its spec, after
// it ends the run is judging the bundle; a finished run names its bundle.
func nightlyStatus(ctx context.Context, cl client.Client, st Status, children *childPolls) (Status, int, error) {
	child, requests, err := getStatus(ctx, cl, st.ID+"/sweep", children)
	var missing *serviceerror.NotFound
	switch {
	case errors.As(err, &missing):
		st.Progress.Phase = "resolving the spec"
	case err != nil:
		return st, requests, err
	default:
		st.Progress = child.Progress
	}
	switch st.State {
	case "running":
		if child.State == "completed" {
			st.Progress.Phase = "judging against the baseline"
		}
	case "completed":
		var res workflows.NightlyResult
		if err := cl.GetWorkflow(ctx, st.ID, "").Get(ctx, &res); err != nil {
			return st, requests, err
		}
		st.BundleID, st.Progress.Phase, st.Progress.BundleID = res.BundleID, "done", res.BundleID
	default:
		if err := cl.GetWorkflow(ctx, st.ID, "").Get(ctx, nil); err != nil {
			st.Error = sweep.FailureMessage(err)
		}
	}
	return st, requests, nil
}

// corpusWorkflowType is the name CorpusWorkflow is registered under.
const corpusWorkflowType = "CorpusWorkflow"

// finalProgress counts the work of a completed sweep from its history. A
// closed workflow answers a query only when a worker replays it, so
// status would show nothing done; its history holds what it did: the
// input names the systems and corpora, and each corpus child's result
// lists its conversations.
func finalProgress(ctx context.Context, cl client.Client, id string) (Progress, error) {
	var p Progress
	dc := converter.GetDefaultDataConverter()
	var corpora int
	events := cl.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for events.HasNext() {
		ev, err := events.Next()
		if err != nil {
			return p, fmt.Errorf("history: %w", err)
		}
		switch ev.GetEventType() {
		case enums.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
			var in sweep.Input
			if err := dc.FromPayloads(ev.GetWorkflowExecutionStartedEventAttributes().GetInput(), &in); err != nil {
				return p, fmt.Errorf("history: sweep input: %w", err)
			}
			p.Systems, corpora = len(in.Systems), len(in.Corpora)
			p.Agents = agentsOf(in.Spec)
		case enums.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED:
			a := ev.GetChildWorkflowExecutionCompletedEventAttributes()
			if a.GetWorkflowType().GetName() == agentWorkflowType {
				if err := agentDone(&p, dc, a.GetResult()); err != nil {
					return p, fmt.Errorf("history: agent %s: %w", a.GetWorkflowExecution().GetWorkflowId(), err)
				}
				continue
			}
			if a.GetWorkflowType().GetName() == seatedWorkflowType {
				if err := seatedDone(&p, dc, a.GetResult()); err != nil {
					return p, fmt.Errorf("history: seated agent %s: %w", a.GetWorkflowExecution().GetWorkflowId(), err)
				}
				continue
			}
			if a.GetWorkflowType().GetName() != corpusWorkflowType {
				continue
			}
			var plan activities.CorpusPlan
			if err := dc.FromPayloads(a.GetResult(), &plan); err != nil {
				return p, fmt.Errorf("history: corpus %s: %w", a.GetWorkflowExecution().GetWorkflowId(), err)
			}
			p.ConversationsTotal += len(plan.Conversations)
		}
	}
	p.ConversationsGenerated = p.ConversationsTotal
	p.TracksTotal = p.ConversationsTotal * p.Systems
	p.TracksInferred = p.TracksTotal
	p.SystemsTotal = p.Systems * corpora
	p.SystemsScored = p.SystemsTotal
	return p, nil
}

// addRunning adds what the sweep's running children report to the counts
// of its finished ones and returns how many it queried: every child, or
// with children those it picks, counting the others as they last
// answered. A child that does not answer (it just finished, or has not
// started) adds what it last answered, or nothing.
func addRunning(ctx context.Context, cl client.Client, p *workflows.Progress, children *childPolls) (queried int) {
	ask := func(workflows.Child) bool { return true }
	if children != nil {
		ask = children.pick(p.Running)
	}
	for _, c := range p.Running {
		var cp workflows.ChildProgress
		if ask(c) {
			queried++
			v, err := cl.QueryWorkflow(ctx, c.ID, "", workflows.ProgressQuery)
			if err == nil && v.Get(&cp) == nil && children != nil {
				children.last[c.ID] = cp
			}
		}
		if children != nil {
			cp = children.last[c.ID]
		}
		switch c.Kind {
		case workflows.ChildCorpus:
			p.ConversationsTotal += cp.Total
			p.ConversationsGenerated += cp.Done
			p.TracksTotal += cp.Total * p.Systems
		case workflows.ChildEvaluation:
			p.TracksInferred += cp.Done
		case workflows.ChildAgent:
			addAgent(p, c.ID, cp)
		case workflows.ChildSeated:
			addSeated(p, c.ID, cp)
		}
	}
	p.Running = nil
	return queried
}

// childPolls is what Watch remembers of a sweep's running children
// between polls: each one's last answer, and when it was last asked.
type childPolls struct {
	last  map[string]workflows.ChildProgress
	asked map[string]int // the poll that last queried the child
	poll  int
}

func newChildPolls() *childPolls {
	return &childPolls{last: map[string]workflows.ChildProgress{}, asked: map[string]int{}}
}

// watchChildQueries is how many running children each of Watch's polls
// queries: those never asked first, then those asked longest ago. A query
// is work for the server and a worker (about 11 ms of CPU on the lab-scale
// run's machine, docs/performance.md#lab-scale); querying every child in
// every poll was 2.4% of a full-preset sweep's CPU.
const watchChildQueries = 1

// pick chooses this poll's children to query among running and forgets
// those no longer running.
func (c *childPolls) pick(running []workflows.Child) func(workflows.Child) bool {
	c.poll++
	live := map[string]bool{}
	for _, r := range running {
		live[r.ID] = true
	}
	for id := range c.asked {
		if !live[id] {
			delete(c.asked, id)
			delete(c.last, id)
		}
	}
	order := slices.Clone(running)
	slices.SortStableFunc(order, func(a, b workflows.Child) int { return cmp.Compare(c.asked[a.ID], c.asked[b.ID]) })
	chosen := map[string]bool{}
	for _, r := range order[:min(len(order), watchChildQueries)] {
		chosen[r.ID] = true
		c.asked[r.ID] = c.poll
	}
	return func(r workflows.Child) bool { return chosen[r.ID] }
}

func stateName(s enums.WorkflowExecutionStatus) string {
	switch s {
	case enums.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return "running"
	case enums.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return "completed"
	case enums.WORKFLOW_EXECUTION_STATUS_FAILED:
		return "failed"
	case enums.WORKFLOW_EXECUTION_STATUS_CANCELED:
		return "canceled"
	case enums.WORKFLOW_EXECUTION_STATUS_TERMINATED:
		return "terminated"
	case enums.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
		return "timed out"
	case enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return "continued as new"
	}
	return "unknown"
}

// Watch polls a sweep's status every interval, calling show with each,
// until it is no longer running; it returns the last status.
func Watch(ctx context.Context, cl client.Client, id string, interval time.Duration, show func(Status)) (Status, error) {
	var last Progress
	children := newChildPolls()
	for {
		st, requests, err := getStatus(ctx, cl, id, children)
		if err != nil {
			return st, err
		}
		// A query can time out while the workers are busy: keep showing
		// the last progress rather than flickering back to zero.
		if st.State == "running" && st.Progress.Phase == phaseNoWorker && last.Phase != "" {
			st.Progress = last
		}
		last = st.Progress
		if show != nil {
			show(st)
		}
		if st.State != "running" {
			return st, nil
		}
		if err := watchWait(ctx, max(interval, time.Duration(requests)*watchRequestGap)); err != nil {
			return st, err
		}
	}
}

// watchRequestGap spaces Watch's polls so that it asks at most one request
// a second of the server: a poll describes the sweep, queries it and
// queries watchChildQueries of its running children. Polled every 500 ms
// and querying every child, a full-preset sweep of 12 systems asked 28
// requests a second and the dev server burned 135 CPU-s; at four a second
// the server and the workers still spent 2.4% of the sweep's CPU on them
// (docs/performance.md#lab-scale).
const watchRequestGap = time.Second

// watchWait waits d or until ctx is done (a variable: tests record the
// waits instead).
var watchWait = func(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// Client is the part of the Temporal client the commands use.
type Client = client.Client
