// Package clustertest runs a real Kubernetes control plane for tests: etcd and
// kube-apiserver as built by `scripts/setup.sh kube` (docs/operations.md#tools), started by
// controller-runtime's envtest. Nothing else runs there: no scheduler, no
// controllers, no kubelet, so tests set the status a controller would.
package clustertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/floorbench/floorbench/internal/testenv"
)

// ControlPlane is a running etcd and kube-apiserver with RBAC on.
type ControlPlane struct {
	env *envtest.Environment
	// Admin is the configuration of a member of system:masters.
	Admin *rest.Config
	// Clients acts as Admin.
	Clients kubernetes.Interface
}

// shared is the one control plane of a test binary, started by the first
// test that asks for it and stopped by Main.
var shared struct {
	once  sync.Once
	plane *ControlPlane
	err   error
}

// Main runs a package's tests and stops the control plane they started.
func Main(m *testing.M) {
	code := m.Run()
	if shared.plane != nil {
		if err := shared.plane.env.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "clustertest: stopping the control plane: %v\n", err)
		}
	}
	os.Exit(code)
}

// Get returns the test binary's control plane, starting it on first use.
// Without the tools it skips the test, or fails it where tools are required
// (testenv); with -short it skips.
func Get(t testing.TB) *ControlPlane {
	t.Helper()
	if testing.Short() {
		t.Skip("a real kube-apiserver and etcd: skipped with -short")
	}
	apiserver := testenv.Tool(t, "kube-apiserver", "kube")
	etcd := testenv.Tool(t, "etcd", "kube")
	shared.once.Do(func() { shared.plane, shared.err = start(apiserver, etcd) })
	if shared.err != nil {
		t.Fatalf("starting the control plane: %v", shared.err)
	}
	return shared.plane
}

func start(apiserver, etcd string) (*ControlPlane, error) {
	server := &envtest.APIServer{Path: apiserver}
	// Without a controller-manager the endpoint reconciler
	// refuses the loopback address.
	server.Configure().Set("endpoint-reconciler-type", "none")
	env := &envtest.Environment{
		ControlPlane: envtest.ControlPlane{APIServer: server, Etcd: &envtest.Etcd{Path: etcd}},
		// Two shared cores can make a cold start slow; the default is 20s.
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	admin, err := env.Start()
	if err != nil {
		return nil, err
	}
	clients, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return nil, err
	}
	return &ControlPlane{env: env, Admin: admin, Clients: clients}, nil
}

// WriteKubeconfig writes a kubeconfig for the admin into dir and returns its
// path, for programs such as helm.
func (p *ControlPlane) WriteKubeconfig(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, p.env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// ServiceAccountConfig returns a configuration that authenticates with a
// token bound to the service account, as a pod running under it would.
func (p *ControlPlane) ServiceAccountConfig(ctx context.Context, namespace, name string) (*rest.Config, error) {
	token, err := p.Clients.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("token for service account %s/%s: %w", namespace, name, err)
	}
	return &rest.Config{
		Host: p.Admin.Host,
		// Tests poll fast; client-go's default of 5 requests a second would
		// pace them instead of the code under test.
		QPS: 1000, Burst: 2000,
		BearerToken:     token.Status.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: p.Admin.CAData},
	}, nil
}
