package cluster

import (
	"fmt"
	"log/slog"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Config says which Deployment holds the GPU workers and how far it may grow.
type Config struct {
	// Deployment names the GPU worker Deployment; empty disables capacity
	// control.
	Deployment string
	// Namespace holds the Deployment; empty means the namespace of the
	// kubeconfig's context or of the pod's service account.
	Namespace string
	// RestingReplicas is the size of the pool when no sweep claims it.
	RestingReplicas int32
	// MaxReplicas bounds the pool whatever the claims add up to.
	MaxReplicas int32
	// ReadyTimeout bounds the wait for ready workers.
	ReadyTimeout time.Duration
	// PollInterval is how often readiness is checked; zero means two seconds.
	PollInterval time.Duration
	// Kubeconfig is a kubeconfig file; empty means in-cluster configuration,
	// else $KUBECONFIG or ~/.kube/config.
	Kubeconfig string
}

func (c Config) validate() error {
	switch {
	case c.MaxReplicas < 1:
		return fmt.Errorf("GPU capacity: maximum replicas %d, want at least 1", c.MaxReplicas)
	case c.RestingReplicas < 0 || c.RestingReplicas > c.MaxReplicas:
		return fmt.Errorf("GPU capacity: resting replicas %d, want 0 to the maximum %d", c.RestingReplicas, c.MaxReplicas)
	case c.ReadyTimeout <= 0:
		return fmt.Errorf("GPU capacity: ready timeout %s, want a positive duration", c.ReadyTimeout)
	}
	return nil
}

// New connects to the cluster the process runs in, or the one its kubeconfig
// names, and returns the capacity of cfg's Deployment there. When the
// Deployment is not configured or no cluster is reachable by configuration, it
// returns a capacity that is not Enabled and says so in the log.
func New(cfg Config, log *slog.Logger) (*DeploymentCapacity, error) {
	if cfg.Deployment == "" {
		log.Info("GPU capacity control disabled: no GPU worker deployment configured")
		return &DeploymentCapacity{}, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = cfg.Kubeconfig
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
	restConfig, err := loader.ClientConfig()
	if clientcmd.IsEmptyConfig(err) {
		log.Info("GPU capacity control disabled: not on Kubernetes (no in-cluster service account, no kubeconfig)",
			"deployment", cfg.Deployment)
		return &DeploymentCapacity{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("GPU capacity: kubernetes client configuration: %w", err)
	}
	if cfg.Namespace == "" {
		if cfg.Namespace, _, err = loader.Namespace(); err != nil {
			return nil, fmt.Errorf("GPU capacity: namespace: %w", err)
		}
	}
	return NewForConfig(restConfig, cfg, log)
}

// NewForConfig returns the capacity of cfg's Deployment in the cluster that
// restConfig reaches, as the identity restConfig carries.
func NewForConfig(restConfig *rest.Config, cfg Config, log *slog.Logger) (*DeploymentCapacity, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Namespace == "" {
		return nil, fmt.Errorf("GPU capacity: no namespace for deployment %s", cfg.Deployment)
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 2 * time.Second
	}
	clients, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, fmt.Errorf("GPU capacity: kubernetes client: %w", err)
	}
	return &DeploymentCapacity{
		deployments: clients.AppsV1().Deployments(cfg.Namespace),
		cfg:         cfg,
		log:         log.With("deployment", cfg.Namespace+"/"+cfg.Deployment),
	}, nil
}
