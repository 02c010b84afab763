package cluster_test

import (
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/cluster"
)

func lookupIn(env map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) { v, ok := env[name]; return v, ok }
}

func TestConfigFromEnv(t *testing.T) {
	cfg, err := cluster.ConfigFromEnv(lookupIn(map[string]string{
		cluster.EnvDeployment: "floorbench-worker-gpu", cluster.EnvRestingReplicas: "1",
		cluster.EnvMaxReplicas: "8", cluster.EnvReadyTimeout: "90s",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := cluster.Config{Deployment: "floorbench-worker-gpu", RestingReplicas: 1, MaxReplicas: 8, ReadyTimeout: 90 * time.Second}
	if cfg != want {
		t.Errorf("ConfigFromEnv = %+v, want %+v", cfg, want)
	}
}

func TestConfigFromEnvWithoutDeploymentDisables(t *testing.T) {
	cfg, err := cluster.ConfigFromEnv(lookupIn(map[string]string{cluster.EnvMaxReplicas: "not read"}))
	if err != nil || cfg.Deployment != "" {
		t.Errorf("ConfigFromEnv = %+v, %v; want no deployment and no error", cfg, err)
	}
}

func TestConfigFromEnvNamesTheBadVariable(t *testing.T) {
	good := map[string]string{
		cluster.EnvDeployment: "gpu", cluster.EnvRestingReplicas: "0",
		cluster.EnvMaxReplicas: "4", cluster.EnvReadyTimeout: "10m",
	}
	for name, bad := range map[string]string{
		cluster.EnvRestingReplicas: "none",
		cluster.EnvMaxReplicas:     "",
		cluster.EnvReadyTimeout:    "ten minutes",
	} {
		env := map[string]string{}
		for k, v := range good {
			env[k] = v
		}
		env[name] = bad
		_, err := cluster.ConfigFromEnv(lookupIn(env))
		errorSays(t, err, name)
	}
	env := map[string]string{}
	for k, v := range good {
		env[k] = v
	}
	env[cluster.EnvMaxReplicas] = "0"
	_, err := cluster.ConfigFromEnv(lookupIn(env))
	errorSays(t, err, "maximum replicas 0")
}
