package charts

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/floorbench/floorbench/internal/cluster/clustertest"
)

// helm install --dry-run=server against a real API server succeeds for every
// values case, and the server itself validates (strictly: unknown fields are
// errors) and admits every rendered object, in a namespace of its own.
func TestInstallDryRunServer(t *testing.T) {
	plane := clustertest.Get(t)
	h := newHelm(t)
	kubeconfig := plane.WriteKubeconfig(t, t.TempDir())
	i := 0
	for name, values := range valueCases(t) {
		i++
		ns := fmt.Sprintf("install-%d", i)
		t.Run(name, func(t *testing.T) {
			if err := plane.CreateNamespace(t.Context(), ns); err != nil {
				t.Fatal(err)
			}
			if _, err := h.run("install", release, chartDir, "--kubeconfig", kubeconfig,
				"--namespace", ns, "--values", values, "--dry-run=server"); err != nil {
				t.Error(err)
			}
			err := plane.Apply(t.Context(), ns, h.template(values),
				metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
			if err != nil {
				t.Error(err)
			}
		})
	}
}
