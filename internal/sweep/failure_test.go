package sweep_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/workflows"
)

// A sweep that fails in an activity of a child workflow is reported by
// that activity's message, once: the workflow error repeats it at every
// level it crossed.
func TestFailureMessageIsTheCauseOnce(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	// The test environment fails a workflow that waits for its children
	// or activities longer than 3 s of wall time (its default), which the
	// race detector at load 40 reached once: the error was then that
	// timeout's, not the cause.
	env.SetTestTimeout(10 * time.Minute)
	env.RegisterWorkflow(workflows.CorpusWorkflow)
	var a *activities.Activities
	env.RegisterActivity(a)
	const cause = `corpus c: unknown preset "huge" (want one of mptb, tiny)`
	env.OnActivity(a.PlanGenerated, mock.Anything, mock.Anything).Return(func(context.Context, activities.PlanGeneratedInput) (activities.CorpusPlan, error) {
		return activities.CorpusPlan{}, temporal.NewNonRetryableApplicationError(cause, sweep.BadInput, nil)
	})
	sw := spec.Sweep{Name: "unit", Corpora: []spec.Corpus{{Name: "c", Generate: &spec.Generate{Preset: "tiny", Seed: 1}}},
		Systems: []spec.System{{Name: "r", Builtin: "rms"}}}
	sw.Normalise()
	env.ExecuteWorkflow(workflows.SweepWorkflow, sweep.Input{Spec: sw, SpecHash: "h",
		Corpora: []sweep.CorpusSource{{Name: "c", Generate: sw.Corpora[0].Generate}}, Systems: []sweep.SystemRef{{Name: "r", Hash: "hr"}}})
	err := env.GetWorkflowError()
	if err == nil || strings.Count(err.Error(), cause) < 2 {
		t.Fatalf("the workflow error should repeat its cause: %v", err)
	}
	if got := sweep.FailureMessage(err); got != cause {
		t.Errorf("FailureMessage = %q\nwant %q", got, cause)
	}
}

// An error from outside Temporal (a client that cannot reach the server)
// is said by its deepest cause as well; nothing is named an activity.
func TestFailureMessageOfAPlainError(t *testing.T) {
	err := fmt.Errorf("sweep %s: %w", "floorbench-sweep-x", fmt.Errorf("describe: %w", errors.New("connection refused")))
	if got := sweep.FailureMessage(err); got != "connection refused" {
		t.Errorf("FailureMessage = %q, want the deepest cause", got)
	}
}

// The error types no retry heals are the two the activities fail with.
func TestNonRetryableNamesBadInputAndCorrupt(t *testing.T) {
	if got := sweep.NonRetryable(); !slices.Equal(got, []string{"BadInput", "Corrupt"}) {
		t.Errorf("NonRetryable = %q", got)
	}
}
