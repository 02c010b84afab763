// Package cluster sizes the GPU worker pool of a floorbench installation on
// Kubernetes (docs/operations.md#gpu-capacity).
//
// Inference runs on the floorbench-gpu task queue, whose workers are one
// Deployment on GPU nodes. GPU nodes are expensive, so that Deployment rests
// at a small size (usually zero) and a sweep asks for the replicas it needs
// before its GPU fan-out, then gives them back when it ends.
//
// # Claims
//
// Several sweeps may run at once. Each records a claim (holder -> replicas)
// in an annotation on the Deployment, written with optimistic concurrency, and
// the Deployment is sized to the sum of the claims, bounded by the configured
// maximum and never below the resting size. Releasing a claim is idempotent,
// so a cleanup step that is retried, or that runs after a failed acquisition,
// is harmless; the last release returns the pool to its resting size.
//
// # Use
//
// A worker builds its capacity from the environment the chart gives it:
//
//	cfg, err := cluster.ConfigFromEnv(os.LookupEnv)
//	capacity, err := cluster.New(cfg, logger)
//
// and a sweep brackets its GPU fan-out with Acquire(ctx, sweepID, n) and
// Release(cleanupCtx, sweepID), the release on a context that survives the
// sweep's cancellation (in a workflow, a disconnected context).
//
// # Permissions
//
// Everything here needs only get and patch on the GPU worker Deployment and
// update on its scale subresource: the Role of the Helm chart grants exactly
// that.
//
// # Off Kubernetes
//
// Without a Deployment name, or with neither an in-cluster service account nor
// a kubeconfig, New returns a capacity that logs once and does nothing, so the
// same sweep code runs on a laptop.
package cluster
