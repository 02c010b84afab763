package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	appsclient "k8s.io/client-go/kubernetes/typed/apps/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// withdrawTimeout bounds the cleanup that Acquire runs itself when it fails.
const withdrawTimeout = time.Minute

// conflictBackoff paces retries after a write lost to a concurrent one: other
// sweeps' claims and the Deployment controller's status updates both move the
// resourceVersion.
var conflictBackoff = wait.Backoff{Steps: 10, Duration: 10 * time.Millisecond, Factor: 2, Jitter: 0.5, Cap: 2 * time.Second}

// errNotReady is the cause of the readiness deadline, told apart from the
// caller's own cancellation.
var errNotReady = errors.New("GPU workers not ready in time")

// DeploymentCapacity sizes one Deployment of GPU workers by the claims of the
// sweeps that use it (activities.Capacity).
type DeploymentCapacity struct {
	deployments appsclient.DeploymentInterface
	cfg         Config
	log         *slog.Logger
}

// Acquire records holder's claim on replicas GPU workers, scales the pool up
// to cover every claim and waits until at least that many workers (bounded by
// the maximum) are ready. On any error, cancellation included, it has already
// withdrawn the claim. The returned release withdraws it after success; pass
// it a context that outlives the sweep's own cancellation
// (context.WithoutCancel), so that a cancelled sweep still scales back.
func (c *DeploymentCapacity) Acquire(ctx context.Context, holder string, replicas int32) (func(context.Context) error, error) {
	if !c.Enabled() {
		return func(context.Context) error { return nil }, nil
	}
	if replicas < 1 {
		return nil, fmt.Errorf("GPU capacity for %s: %d replicas requested, want at least 1", holder, replicas)
	}
	need := min(replicas, c.cfg.MaxReplicas)
	if need < replicas {
		c.log.Warn("GPU replicas requested above the maximum; using the maximum",
			"holder", holder, "requested", replicas, "max", c.cfg.MaxReplicas)
	}
	err := c.claim(ctx, holder, need)
	if err == nil {
		err = c.waitReady(ctx, need)
	}
	if err != nil {
		// The claim may be recorded even when the call failed; withdraw it on
		// a context the caller's cancellation does not reach.
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), withdrawTimeout)
		defer cancel()
		return nil, errors.Join(err, c.Release(cleanup, holder))
	}
	return func(ctx context.Context) error { return c.Release(ctx, holder) }, nil
}

// claim records holder's claim and raises the pool to cover all claims.
func (c *DeploymentCapacity) claim(ctx context.Context, holder string, need int32) error {
	if err := c.updateClaims(ctx, func(cl claims) { cl[holder] = need }); err != nil {
		return err
	}
	c.log.Info("claimed GPU workers", "holder", holder, "replicas", need)
	// Only raise here: an operator who sized the pool up by hand keeps it
	// until the last release.
	return c.scale(ctx, func(current, size int32) int32 { return max(current, size) })
}

// Release withdraws holder's claim, if any, and scales the pool down to what
// the remaining claims need. Calling it again is harmless, which lets a
// workflow run it as a retried cleanup step under any holder name it acquired
// with.
func (c *DeploymentCapacity) Release(ctx context.Context, holder string) error {
	if !c.Enabled() {
		return nil
	}
	if err := c.updateClaims(ctx, func(cl claims) { delete(cl, holder) }); err != nil {
		return err
	}
	c.log.Info("released GPU workers", "holder", holder)
	return c.scale(ctx, func(_, size int32) int32 { return size })
}

// updateClaims applies change to the claims on the Deployment. The patch
// carries the resourceVersion it read, so two sweeps that claim at once
// cannot overwrite each other: the loser reads again.
func (c *DeploymentCapacity) updateClaims(ctx context.Context, change func(claims)) error {
	err := retry.RetryOnConflict(conflictBackoff, func() error {
		d, err := c.deployments.Get(ctx, c.cfg.Deployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		result, err := parseClaims(d.Annotations[ClaimsAnnotation])
		if err != nil {
			return err
		}
		change(result)
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
			"resourceVersion": d.ResourceVersion,
			"annotations":     map[string]*string{ClaimsAnnotation: result.annotation()},
		}})
		if err != nil {
			return err
		}
		_, err = c.deployments.Patch(ctx, c.cfg.Deployment, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	})
	return c.describe("record GPU claims", err)
}

// scale sets the Deployment's replicas to target(current, size), where size
// is what the recorded claims call for, through the scale subresource. The
// write carries the resourceVersion of the Deployment it read the claims
// from, so a pool size is never written for claims that have changed since:
// of two releases racing, the one that read stale claims reads again.
func (c *DeploymentCapacity) scale(ctx context.Context, target func(current, size int32) int32) error {
	err := retry.RetryOnConflict(conflictBackoff, func() error {
		d, err := c.deployments.Get(ctx, c.cfg.Deployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		all, err := parseClaims(d.Annotations[ClaimsAnnotation])
		if err != nil {
			return err
		}
		current := ptr.Deref(d.Spec.Replicas, 1)
		want := target(current, all.size(c.cfg.RestingReplicas, c.cfg.MaxReplicas))
		if want == current {
			return nil
		}
		c.log.Info("scaling GPU workers", "from", current, "to", want, "claims", len(all))
		_, err = c.deployments.UpdateScale(ctx, c.cfg.Deployment, &autoscalingv1.Scale{
			ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: d.Namespace, ResourceVersion: d.ResourceVersion},
			Spec:       autoscalingv1.ScaleSpec{Replicas: want},
		}, metav1.UpdateOptions{})
		return err
	})
	return c.describe("scale GPU workers", err)
}

// waitReady polls until at least need replicas are ready, for at most the
// configured timeout. Polling needs only get, where a watch would need list
// and watch on every Deployment of the namespace. A failed poll is tried
// again unless no later one can succeed (the Deployment is gone, or the Role
// does not allow it).
func (c *DeploymentCapacity) waitReady(ctx context.Context, need int32) error {
	ctx, cancel := context.WithTimeoutCause(ctx, c.cfg.ReadyTimeout, errNotReady)
	defer cancel()
	var ready int32
	var lastErr error
	err := wait.PollUntilContextCancel(ctx, c.cfg.PollInterval, true, func(ctx context.Context) (bool, error) {
		d, err := c.deployments.Get(ctx, c.cfg.Deployment, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err) || apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
			return false, err
		case err != nil:
			lastErr = err
			return false, nil
		}
		ready = d.Status.ReadyReplicas
		return ready >= need, nil
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(context.Cause(ctx), errNotReady):
		return fmt.Errorf("%w: %d of %d replicas of deployment %s/%s ready after %s; "+
			"check that GPU nodes can take them (kubectl -n %s describe deployment %s)%s",
			errNotReady, ready, need, c.cfg.Namespace, c.cfg.Deployment, c.cfg.ReadyTimeout,
			c.cfg.Namespace, c.cfg.Deployment, lastError(lastErr))
	case ctx.Err() != nil:
		return fmt.Errorf("waiting for GPU workers: %w", context.Cause(ctx))
	}
	return c.describe("wait for GPU workers", err)
}

func lastError(err error) string {
	if err == nil {
		return ""
	}
	return "; last error: " + err.Error()
}

// describe turns API errors into what an operator can act on.
func (c *DeploymentCapacity) describe(doing string, err error) error {
	where := c.cfg.Namespace + "/" + c.cfg.Deployment
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%s: deployment %s not found: %w", doing, where, err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s: not allowed on deployment %s (is the chart's Role bound to this service account?): %w", doing, where, err)
	}
	return fmt.Errorf("%s: deployment %s: %w", doing, where, err)
}
