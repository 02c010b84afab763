package activities

import (
	"context"
)

// Capacity scales the GPU worker pool for the sweeps that claim it
// (docs/operations.md#gpu-capacity). cluster.DeploymentCapacity implements it
// on Kubernetes; the worker wires it in, so this package does not link
// client-go.
type Capacity interface {
	// Acquire records holder's claim on replicas GPU workers, scales the pool
	// up to cover every claim and waits until at least that many workers
	// (bounded by the maximum) are ready. On any error, cancellation included,
	// it has already withdrawn the claim. The returned release withdraws it
	// after success; pass it a context that outlives the sweep's own
	// cancellation (context.WithoutCancel), so that a cancelled sweep still
	// scales back.
	Acquire(ctx context.Context, holder string, replicas int32) (release func(context.Context) error, err error)
	// Release withdraws holder's claim, if any, and scales the pool down to
	// what the remaining claims need. Calling it again is harmless, which lets
	// a workflow run it as a retried cleanup step under any holder name it
	// acquired with.
	Release(ctx context.Context, holder string) error
}

// CapacityInput names a sweep's claim on GPU workers.
type CapacityInput struct {
	Holder   string // the sweep's workflow id
	Replicas int32
}

// AcquireGPU scales the GPU worker Deployment up for a sweep and waits for
// ready workers (docs/operations.md#gpu-capacity). Off Kubernetes it returns at once.
func (a *Activities) AcquireGPU(ctx context.Context, in CapacityInput) error {
	if a.Capacity == nil {
		return nil
	}
	_, err := a.Capacity.Acquire(ctx, in.Holder, in.Replicas)
	return err
}

// ReleaseGPU withdraws a sweep's claim and scales the pool back; repeating
// it is harmless, so the workflow runs it as a retried cleanup step.
func (a *Activities) ReleaseGPU(ctx context.Context, in CapacityInput) error {
	if a.Capacity == nil {
		return nil
	}
	return a.Capacity.Release(ctx, in.Holder)
}
