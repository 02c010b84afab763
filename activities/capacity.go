package activities

import (
	"context"
)

// Capacity scales the GPU worker pool for the sweeps that claim it
// (internal/cluster implements it on Kubernetes; the worker wires it in, so
// this package does not link client-go).
type Capacity interface {
	Acquire(ctx context.Context, holder string, replicas int32) (release func(context.Context) error, err error)
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
