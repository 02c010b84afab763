package temporalclient

import (
	"testing"

	"go.temporal.io/api/enums/v1"
)

// Every workflow state a user can meet has its own plain name.
func TestStateNames(t *testing.T) {
	for s, want := range map[enums.WorkflowExecutionStatus]string{
		enums.WORKFLOW_EXECUTION_STATUS_RUNNING:          "running",
		enums.WORKFLOW_EXECUTION_STATUS_COMPLETED:        "completed",
		enums.WORKFLOW_EXECUTION_STATUS_FAILED:           "failed",
		enums.WORKFLOW_EXECUTION_STATUS_CANCELED:         "canceled",
		enums.WORKFLOW_EXECUTION_STATUS_TERMINATED:       "terminated",
		enums.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:        "timed out",
		enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW: "continued as new",
		enums.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED:      "unknown",
	} {
		if got := stateName(s); got != want {
			t.Errorf("stateName(%v) = %q, want %q", s, got, want)
		}
	}
}
