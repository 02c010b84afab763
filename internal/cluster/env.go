package cluster

import (
	"fmt"
	"strconv"
	"time"
)

// The environment variables the Helm chart's worker ConfigMap sets for
// capacity control (charts/floorbench/templates/configmap.yaml).
const (
	EnvDeployment      = "FLOORBENCH_GPU_DEPLOYMENT"
	EnvRestingReplicas = "FLOORBENCH_GPU_RESTING_REPLICAS"
	EnvMaxReplicas     = "FLOORBENCH_GPU_MAX_REPLICAS"
	EnvReadyTimeout    = "FLOORBENCH_GPU_READY_TIMEOUT"
)

// ConfigFromEnv reads the capacity configuration through lookup (os.LookupEnv
// in a worker). Without EnvDeployment the configuration disables capacity
// control, and the other variables are not read.
func ConfigFromEnv(lookup func(string) (string, bool)) (Config, error) {
	var cfg Config
	cfg.Deployment, _ = lookup(EnvDeployment)
	if cfg.Deployment == "" {
		return cfg, nil
	}
	replicas := func(name string, dst *int32) error {
		v, _ := lookup(name)
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return fmt.Errorf("%s=%q: want a whole number of replicas", name, v)
		}
		*dst = int32(n)
		return nil
	}
	if err := replicas(EnvRestingReplicas, &cfg.RestingReplicas); err != nil {
		return cfg, err
	}
	if err := replicas(EnvMaxReplicas, &cfg.MaxReplicas); err != nil {
		return cfg, err
	}
	v, _ := lookup(EnvReadyTimeout)
	timeout, err := time.ParseDuration(v)
	if err != nil {
		return cfg, fmt.Errorf("%s=%q: want a duration such as 10m", EnvReadyTimeout, v)
	}
	cfg.ReadyTimeout = timeout
	return cfg, cfg.validate()
}
