package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/floorbench/floorbench/internal/cluster"
	"github.com/floorbench/floorbench/internal/cluster/clustertest"
)

// Names in the manifests rendered from the chart with default values.
const (
	gpuDeployment  = "floorbench-worker-gpu"
	cpuDeployment  = "floorbench-worker-cpu"
	serviceAccount = "floorbench-worker"
)

var namespaces atomic.Int32

// fixture is a namespace holding the chart's default objects (manifests/),
// and the clients to drive and observe them.
type fixture struct {
	t     *testing.T
	plane *clustertest.ControlPlane
	ns    string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	plane := clustertest.Get(t)
	f := &fixture{t: t, plane: plane, ns: fmt.Sprintf("capacity-%d", namespaces.Add(1))}
	if err := plane.CreateNamespace(t.Context(), f.ns); err != nil {
		t.Fatal(err)
	}
	if err := plane.Apply(t.Context(), f.ns, chartManifests(t), metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatal(err)
	}
	return f
}

// chartManifests reads the kustomize base that the chart tests keep equal
// to `helm template` with default values.
func chartManifests(t *testing.T) []byte {
	t.Helper()
	files, err := filepath.Glob("../../manifests/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in ../../manifests: %v", err)
	}
	var all []byte
	for _, file := range files {
		if filepath.Base(file) == "kustomization.yaml" {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		all = append(append(all, "\n---\n"...), b...)
	}
	return all
}

// capacity returns the GPU capacity as the workers run it: authenticated
// with a token of the chart's ServiceAccount, bound by the chart's Role.
func (f *fixture) capacity(maxReplicas int32, readyTimeout time.Duration) *cluster.DeploymentCapacity {
	return f.capacityOf(gpuDeployment, maxReplicas, readyTimeout)
}

func (f *fixture) capacityOf(deployment string, maxReplicas int32, readyTimeout time.Duration) *cluster.DeploymentCapacity {
	f.t.Helper()
	config, err := f.plane.ServiceAccountConfig(f.t.Context(), f.ns, serviceAccount)
	if err != nil {
		f.t.Fatal(err)
	}
	c, err := cluster.NewForConfig(config, cluster.Config{
		Deployment: deployment, Namespace: f.ns, MaxReplicas: maxReplicas,
		ReadyTimeout: readyTimeout, PollInterval: 20 * time.Millisecond,
	}, slog.New(slog.NewTextHandler(f.t.Output(), nil)))
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

// serviceAccountClients acts as the chart's ServiceAccount.
func (f *fixture) serviceAccountClients() kubernetes.Interface {
	f.t.Helper()
	config, err := f.plane.ServiceAccountConfig(f.t.Context(), f.ns, serviceAccount)
	if err != nil {
		f.t.Fatal(err)
	}
	clients, err := kubernetes.NewForConfig(config)
	if err != nil {
		f.t.Fatal(err)
	}
	return clients
}

func (f *fixture) deployment() *appsv1.Deployment {
	f.t.Helper()
	d, err := f.plane.Clients.AppsV1().Deployments(f.ns).Get(context.Background(), gpuDeployment, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

// replicas is the GPU Deployment's desired size.
func (f *fixture) replicas() int32 { return *f.deployment().Spec.Replicas }

// claims decodes the claims annotation; nil when there is none.
func (f *fixture) claims() map[string]int32 {
	f.t.Helper()
	value, ok := f.deployment().Annotations[cluster.ClaimsAnnotation]
	if !ok {
		return nil
	}
	var c map[string]int32
	if err := json.Unmarshal([]byte(value), &c); err != nil {
		f.t.Fatalf("claims annotation %q: %v", value, err)
	}
	return c
}

// setReady writes the status a Deployment controller would after n pods
// passed their readiness checks.
func (f *fixture) setReady(n int32) {
	f.t.Helper()
	d := f.deployment()
	d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas = n, n, n
	d.Status.ObservedGeneration = d.Generation
	if _, err := f.plane.Clients.AppsV1().Deployments(f.ns).UpdateStatus(context.Background(), d, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// eventually polls cond for up to ten seconds.
func (f *fixture) eventually(what string, cond func() bool) {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			f.t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kubelet stands in for the Deployment controller and the kubelets: until
// the test ends, every replica asked for becomes ready at once. It returns
// the largest size the Deployment was ever asked for.
func (f *fixture) kubelet() (largest func() int32) {
	var mu sync.Mutex
	var most int32
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			d, err := f.plane.Clients.AppsV1().Deployments(f.ns).Get(ctx, gpuDeployment, metav1.GetOptions{})
			if err == nil {
				mu.Lock()
				most = max(most, *d.Spec.Replicas)
				mu.Unlock()
				if d.Status.ReadyReplicas != *d.Spec.Replicas {
					n := *d.Spec.Replicas
					d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas = n, n, n
					d.Status.ObservedGeneration = d.Generation
					_, _ = f.plane.Clients.AppsV1().Deployments(f.ns).UpdateStatus(ctx, d, metav1.UpdateOptions{})
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	f.t.Cleanup(func() { stop(); <-done })
	return func() int32 {
		mu.Lock()
		defer mu.Unlock()
		return most
	}
}

func errorSays(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one saying %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}
