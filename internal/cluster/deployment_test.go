package cluster_test

import (
	"context"
	"errors"
	"maps"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestAcquireScalesUpAndReleaseScalesBack(t *testing.T) {
	f := newFixture(t)
	f.kubelet()
	if got := f.replicas(); got != 0 {
		t.Fatalf("chart's resting size %d, want 0", got)
	}
	release, err := f.capacity(4, time.Minute).Acquire(t.Context(), "sweep-a", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.replicas(); got != 2 {
		t.Errorf("during the sweep: %d replicas, want 2", got)
	}
	if got, want := f.claims(), map[string]int32{"sweep-a": 2}; !maps.Equal(got, want) {
		t.Errorf("claims %v, want %v", got, want)
	}
	if err := release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := f.replicas(); got != 0 {
		t.Errorf("after the sweep: %d replicas, want the resting 0", got)
	}
	if got := f.claims(); got != nil {
		t.Errorf("claims left after release: %v", got)
	}
}

func TestAcquireWaitsForReadyReplicas(t *testing.T) {
	f := newFixture(t)
	done := make(chan error, 1)
	go func() {
		_, err := f.capacity(4, time.Minute).Acquire(context.Background(), "sweep-a", 3)
		done <- err
	}()
	f.eventually("the pool is scaled to 3", func() bool { return f.replicas() == 3 })
	f.setReady(2)
	select {
	case err := <-done:
		t.Fatalf("Acquire returned with 2 of 3 replicas ready (err %v)", err)
	case <-time.After(300 * time.Millisecond): // 15 polls
	}
	f.setReady(3)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Acquire did not return once 3 of 3 replicas were ready")
	}
}

func TestPoolNeverExceedsMaximum(t *testing.T) {
	f := newFixture(t)
	largest := f.kubelet()
	c := f.capacity(3, time.Minute)
	releaseA, err := c.Acquire(t.Context(), "sweep-a", 10)
	if err != nil {
		t.Fatal(err)
	}
	releaseB, err := c.Acquire(t.Context(), "sweep-b", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.claims(), map[string]int32{"sweep-a": 3, "sweep-b": 2}; !maps.Equal(got, want) {
		t.Errorf("claims %v, want %v (each bounded by the maximum)", got, want)
	}
	if got := f.replicas(); got != 3 {
		t.Errorf("two sweeps: %d replicas, want the maximum 3", got)
	}
	if err := releaseA(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := f.replicas(); got != 2 {
		t.Errorf("after sweep-a: %d replicas, want sweep-b's 2", got)
	}
	if err := releaseB(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := f.replicas(); got != 0 {
		t.Errorf("after both sweeps: %d replicas, want 0", got)
	}
	if got := largest(); got != 3 {
		t.Errorf("the pool reached %d replicas, want at most (and once) the maximum 3", got)
	}
}

func TestReadyTimeoutFailsClearlyAndScalesBack(t *testing.T) {
	f := newFixture(t)
	_, err := f.capacity(4, 300*time.Millisecond).Acquire(t.Context(), "sweep-a", 2)
	errorSays(t, err, "0 of 2 replicas of deployment "+f.ns+"/"+gpuDeployment+" ready after 300ms", "describe deployment")
	if got := f.replicas(); got != 0 {
		t.Errorf("after the failed acquisition: %d replicas, want 0", got)
	}
	if got := f.claims(); got != nil {
		t.Errorf("claims left after the failed acquisition: %v", got)
	}
}

func TestCancelledAcquireScalesBack(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := f.capacity(4, time.Minute).Acquire(ctx, "sweep-a", 2)
		done <- err
	}()
	f.eventually("the pool is scaled to 2", func() bool { return f.replicas() == 2 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire returned %v, want context.Canceled", err)
	}
	if got := f.replicas(); got != 0 {
		t.Errorf("after cancellation: %d replicas, want 0", got)
	}
	if got := f.claims(); got != nil {
		t.Errorf("claims left after cancellation: %v", got)
	}
}

// A sweep that fails or is cancelled after its workers were ready scales
// back through release on a context its cancellation does not reach; a
// retried release changes nothing.
func TestReleaseAfterFailedOrCancelledSweep(t *testing.T) {
	f := newFixture(t)
	f.kubelet()
	sweep, cancelSweep := context.WithCancel(t.Context())
	release, err := f.capacity(4, time.Minute).Acquire(sweep, "sweep-a", 2)
	if err != nil {
		t.Fatal(err)
	}
	cancelSweep()
	if err := release(sweep); err == nil {
		t.Error("release on the cancelled context succeeded; the test needs it to fail")
	}
	cleanup := context.WithoutCancel(sweep)
	for range 2 {
		if err := release(cleanup); err != nil {
			t.Fatal(err)
		}
		if got := f.replicas(); got != 0 {
			t.Errorf("after release: %d replicas, want 0", got)
		}
	}
}

// Sweeps that claim at the same moment each keep their claim: the writes
// carry the version they read, and the loser reads again.
func TestConcurrentClaimsAreAllKept(t *testing.T) {
	f := newFixture(t)
	f.kubelet()
	c := f.capacity(8, time.Minute)
	holders := []string{"sweep-a", "sweep-b", "sweep-c", "sweep-d"}
	var wg sync.WaitGroup
	errs := make(chan error, len(holders))
	for _, h := range holders {
		wg.Go(func() {
			_, err := c.Acquire(t.Context(), h, 1)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := len(f.claims()); got != len(holders) {
		t.Errorf("%d claims recorded, want %d: %v", got, len(holders), f.claims())
	}
	if got := f.replicas(); got != 4 {
		t.Errorf("%d replicas, want 4", got)
	}
	releaseErrs := make(chan error, len(holders))
	for _, h := range holders {
		wg.Go(func() { releaseErrs <- c.Release(t.Context(), h) })
	}
	wg.Wait()
	close(releaseErrs)
	for err := range releaseErrs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := f.claims(); got != nil {
		t.Errorf("claims left after every release: %v", got)
	}
	if got := f.replicas(); got != 0 {
		t.Errorf("after every release: %d replicas, want 0", got)
	}
}

// The chart's Role grants the capacity control what it uses, on the gpu
// Deployment only; everything else is refused.
func TestChartRoleRefusesWhatItDoesNotGrant(t *testing.T) {
	f := newFixture(t)
	sa := f.serviceAccountClients()
	deployments := sa.AppsV1().Deployments(f.ns)
	ctx := t.Context()
	if _, err := deployments.Get(ctx, gpuDeployment, metav1.GetOptions{}); err != nil {
		t.Fatalf("get of the gpu Deployment, which the Role grants: %v", err)
	}
	if _, err := deployments.GetScale(ctx, gpuDeployment, metav1.GetOptions{}); err != nil {
		t.Fatalf("get of the gpu Deployment's scale, which the Role grants: %v", err)
	}
	refused := map[string]func() error{
		"delete the gpu Deployment": func() error {
			return deployments.Delete(ctx, gpuDeployment, metav1.DeleteOptions{})
		},
		"update the gpu Deployment": func() error {
			_, err := deployments.Update(ctx, f.deployment(), metav1.UpdateOptions{})
			return err
		},
		"list Deployments": func() error {
			_, err := deployments.List(ctx, metav1.ListOptions{})
			return err
		},
		"watch the gpu Deployment": func() error {
			_, err := deployments.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + gpuDeployment})
			return err
		},
		"get the cpu Deployment": func() error {
			_, err := deployments.Get(ctx, cpuDeployment, metav1.GetOptions{})
			return err
		},
		"patch the cpu Deployment": func() error {
			_, err := deployments.Patch(ctx, cpuDeployment, types.MergePatchType, []byte(`{"spec":{"replicas":9}}`), metav1.PatchOptions{})
			return err
		},
		"get the scale of the cpu Deployment": func() error {
			_, err := deployments.GetScale(ctx, cpuDeployment, metav1.GetOptions{})
			return err
		},
		"list Secrets": func() error {
			_, err := sa.CoreV1().Secrets(f.ns).List(ctx, metav1.ListOptions{})
			return err
		},
		"create a Pod": func() error {
			_, err := sa.CoreV1().Pods(f.ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "intruder"}}, metav1.CreateOptions{})
			return err
		},
	}
	for what, call := range refused {
		if err := call(); !apierrors.IsForbidden(err) {
			t.Errorf("%s: got %v, want Forbidden", what, err)
		}
	}
	_, err := f.capacityOf(cpuDeployment, 4, time.Minute).Acquire(ctx, "sweep-a", 1)
	errorSays(t, err, "not allowed on deployment "+f.ns+"/"+cpuDeployment, "Role")
}
