package activities

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// slowStep stands for a detection or synthesis that outlasts the heartbeat
// timeout, with or without keepAlive.
func slowStep(ctx context.Context, alive bool) error {
	if alive {
		defer keepAlive(ctx, "working")()
	}
	time.Sleep(time.Second)
	return nil
}

func runSlowStep(ctx workflow.Context, alive bool) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		HeartbeatTimeout:    300 * time.Millisecond,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	return workflow.ExecuteActivity(ctx, slowStep, alive).Get(ctx, nil)
}

// A step longer than the heartbeat timeout survives only with keepAlive.
func TestKeepAliveOutlastsTheHeartbeatTimeout(t *testing.T) {
	for _, alive := range []bool{true, false} {
		var s testsuite.WorkflowTestSuite
		env := s.NewTestWorkflowEnvironment()
		env.RegisterWorkflow(runSlowStep)
		env.RegisterActivity(slowStep)
		env.ExecuteWorkflow(runSlowStep, alive)
		if err := env.GetWorkflowError(); (err == nil) != alive {
			t.Errorf("keepAlive %v: workflow error %v", alive, err)
		}
	}
}

// Batches fill the concurrency in one wave, up to MaxInferBatch.
func TestInferBatch(t *testing.T) {
	for _, c := range []struct{ n, concurrency, want int }{{12, 4, 3}, {240, 64, 4}, {1000, 4, MaxInferBatch}, {3, 64, 1}, {0, 4, 1}, {5, 0, 5}} {
		if got := InferBatch(c.n, c.concurrency); got != c.want {
			t.Errorf("InferBatch(%d, %d) = %d, want %d", c.n, c.concurrency, got, c.want)
		}
	}
}
