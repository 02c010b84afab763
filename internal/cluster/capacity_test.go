package cluster_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/floorbench/floorbench/internal/cluster"
)

func validConfig() cluster.Config {
	return cluster.Config{Deployment: "floorbench-worker-gpu", Namespace: "floorbench",
		MaxReplicas: 4, ReadyTimeout: time.Minute}
}

// offKubernetes hides every source of cluster configuration: no kubeconfig,
// no in-cluster service account.
func offKubernetes(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "absent"))
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
}

func TestNewIsDisabledOffKubernetes(t *testing.T) {
	offKubernetes(t)
	for name, tc := range map[string]struct {
		cfg     cluster.Config
		message string
	}{
		"no cluster":    {validConfig(), "not on Kubernetes"},
		"no deployment": {cluster.Config{}, "no GPU worker deployment configured"},
	} {
		t.Run(name, func(t *testing.T) {
			var log bytes.Buffer
			capacity, err := cluster.New(tc.cfg, slog.New(slog.NewTextHandler(&log, nil)))
			if err != nil {
				t.Fatal(err)
			}
			if capacity.Enabled() {
				t.Fatal("New returned an enabled capacity off Kubernetes")
			}
			if !strings.Contains(log.String(), tc.message) {
				t.Errorf("log %q does not say %q", log.String(), tc.message)
			}
			release, err := capacity.Acquire(context.Background(), "sweep", 3)
			if err != nil {
				t.Fatal(err)
			}
			if err := release(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestNewForConfigRejectsBadBounds(t *testing.T) {
	for name, change := range map[string]func(*cluster.Config){
		"no maximum":          func(c *cluster.Config) { c.MaxReplicas = 0 },
		"resting above max":   func(c *cluster.Config) { c.RestingReplicas = 5 },
		"negative resting":    func(c *cluster.Config) { c.RestingReplicas = -1 },
		"no ready timeout":    func(c *cluster.Config) { c.ReadyTimeout = 0 },
		"no namespace at all": func(c *cluster.Config) { c.Namespace = "" },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := validConfig()
			change(&cfg)
			if _, err := cluster.NewForConfig(&rest.Config{Host: "https://127.0.0.1:1"}, cfg, slog.Default()); err == nil {
				t.Errorf("NewForConfig accepted %+v", cfg)
			}
		})
	}
}

func TestAcquireRejectsNoReplicas(t *testing.T) {
	capacity, err := cluster.NewForConfig(&rest.Config{Host: "https://127.0.0.1:1"}, validConfig(), slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := capacity.Acquire(context.Background(), "sweep", 0); err == nil {
		t.Error("Acquire of 0 replicas succeeded")
	}
}
