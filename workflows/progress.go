package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// Progress is what the sweep's "progress" query reports. Counts of finished
// children are the sweep's own; while children run, Running names them and
// the client adds what each child's own "progress" query reports
// (temporalclient.GetStatus), so progress costs the server no signal and no
// workflow task.
type Progress struct {
	Phase                  string `json:"phase"`
	ConversationsGenerated int    `json:"conversations_generated"`
	ConversationsTotal     int    `json:"conversations_total"`
	TracksInferred         int    `json:"tracks_inferred"`
	TracksTotal            int    `json:"tracks_total"`
	SystemsScored          int    `json:"systems_scored"`
	SystemsTotal           int    `json:"systems_total"`
	BundleID               string `json:"bundle_id,omitempty"`
	// Systems is the number of systems, so that a running corpus's planned
	// conversations can be counted as tracks to infer.
	Systems int `json:"systems"`
	// Running are the running children: corpus, model, evaluation and agent
	// workflows.
	Running []Child `json:"running,omitempty"`
	// Agents are the sweep's agent evaluations.
	Agents []AgentProgress `json:"agents,omitempty"`
}

// AgentProgress is one agent evaluation: its trials played (or found
// stored, or failed) of the total, and how long all of them take at the
// agent's concurrency (0 until its scenario set is planned).
type AgentProgress struct {
	Name        string `json:"name"`
	WorkflowID  string `json:"workflow_id"`
	Concurrency int    `json:"concurrency"`
	Trials      int    `json:"trials"`
	Done        int    `json:"done"`
	// EstimateS is in seconds of wall time.
	EstimateS float64 `json:"estimate_s"`
	// HasTrials and Seated say what the agent does: plays trials, is
	// seated in the corpora, or both.
	HasTrials bool `json:"has_trials,omitempty"`
	Seated    bool `json:"seated,omitempty"`
	// SeatedWorkflowID names the agent's SeatedWorkflow when it is seated
	// in the sweep's corpora: of its Seats sessions, SeatsDone are
	// finished, and all take at most SeatEstimateS seconds at its
	// concurrency (0 until its seats are planned).
	SeatedWorkflowID string  `json:"seated_workflow_id,omitempty"`
	Seats            int     `json:"seats,omitempty"`
	SeatsDone        int     `json:"seats_done,omitempty"`
	SeatEstimateS    float64 `json:"seat_estimate_s,omitempty"`
}

// Child is a running child workflow whose progress the client queries.
type Child struct {
	ID   string `json:"workflow_id"`
	Kind string `json:"kind"` // ChildCorpus, ChildModel or ChildEvaluation
}

// The kinds of children.
const (
	ChildCorpus     = "corpus"
	ChildEvaluation = "evaluation"
	ChildAgent      = "agent"
	ChildSeated     = "seated"
	ChildModel      = "model"
)

// ChildProgress is what a child's "progress" query reports: of Total
// conversations (0 while a corpus is being planned), Done are generated or
// inferred; of an agent evaluation's Total trials (a seated agent's
// sessions), Done are finished.
type ChildProgress struct {
	Total int `json:"total"`
	Done  int `json:"done"`
	// Estimate is, for an agent evaluation, how long all its trials (a
	// seated agent's sessions) take at its concurrency.
	Estimate time.Duration `json:"estimate_ns,omitempty"`
}

// ProgressQuery is the query a sweep and each of its children answer
// with their progress.
const ProgressQuery = "progress"

// started records a running child; finished removes it.
func (p *Progress) started(id, kind string) { p.Running = append(p.Running, Child{id, kind}) }

func (p *Progress) finished(id string) {
	for i, c := range p.Running {
		if c.ID == id {
			p.Running = append(p.Running[:i], p.Running[i+1:]...)
			return
		}
	}
}

// childReporter is how a child workflow reports progress: a query handler
// on its own counts, which the sweep's watchers read.
type childReporter struct {
	state ChildProgress
}

// newChildReporter registers the child's progress query.
func newChildReporter(ctx workflow.Context) (*childReporter, error) {
	r := &childReporter{}
	err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (ChildProgress, error) { return r.state, nil })
	return r, err
}

// plan sets the number of items and how many are already done.
func (r *childReporter) plan(total, done int) { r.state = ChildProgress{Total: total, Done: done} }

// done counts n finished items.
func (r *childReporter) done(n int) { r.state.Done += n }
