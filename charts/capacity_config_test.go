package charts

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/floorbench/floorbench/internal/cluster"
)

// The worker ConfigMap configures internal/cluster as the chart means it:
// the Deployment it names is the rendered gpu worker, the one the Role lets
// it size, and the bounds are the values'.
func TestConfigMapConfiguresCapacityControl(t *testing.T) {
	h := newHelm(t)
	for name, want := range map[string]cluster.Config{
		"defaults":          {Deployment: "floorbench-worker-gpu", MaxReplicas: 4, ReadyTimeout: 10 * time.Minute},
		"custom-scheduling": {Deployment: "floorbench-worker-gpu", RestingReplicas: 1, MaxReplicas: 16, ReadyTimeout: 20 * time.Minute},
		"production":        {Deployment: "fb-worker-gpu", MaxReplicas: 4, ReadyTimeout: 10 * time.Minute},
		"gpu-off":           {},
	} {
		t.Run(name, func(t *testing.T) {
			objs := objects(t, h.template("testdata/values/"+name+".yaml"))
			var data map[string]string
			var granted []string
			for _, o := range objs {
				switch o := o.(type) {
				case *corev1.ConfigMap:
					data = o.Data
				case *rbacv1.Role:
					for _, rule := range o.Rules {
						granted = append(granted, rule.ResourceNames...)
					}
				}
			}
			got, err := cluster.ConfigFromEnv(func(k string) (string, bool) { v, ok := data[k]; return v, ok })
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("capacity configuration %+v, want %+v", got, want)
			}
			if want.Deployment == "" {
				return
			}
			if _, ok := deployments(objs)[got.Deployment]; !ok {
				t.Errorf("the ConfigMap names Deployment %s, which the chart does not render", got.Deployment)
			}
			if len(granted) == 0 || slices.ContainsFunc(granted, func(n string) bool { return n != got.Deployment }) {
				t.Errorf("the Role grants on %v, want only %s", granted, got.Deployment)
			}
		})
	}
}
