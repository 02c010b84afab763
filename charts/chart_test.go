package charts

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/testenv"
)

func TestLintStrict(t *testing.T) {
	h := newHelm(t)
	for name, values := range valueCases(t) {
		t.Run(name, func(t *testing.T) {
			if _, err := h.run("lint", "--strict", chartDir, "--kube-version", kubeVersion, "--values", values); err != nil {
				t.Error(err)
			}
		})
	}
}

// values.schema.json covers every value: a misspelt or misplaced one, a
// credential written into the values, or a value out of range fails.
func TestSchemaRejectsBadValues(t *testing.T) {
	h := newHelm(t)
	for name, values := range map[string]string{
		"misspelt value":               "workers:\n  gpu:\n    maxReplica: 3\n",
		"credential in values":         "s3:\n  accessKey: AKIA0000\n",
		"no gpu":                       "workers:\n  gpu:\n    gpusPerPod: 0\n",
		"no maximum":                   "workers:\n  gpu:\n    maxReplicas: 0\n",
		"bad timeout":                  "workers:\n  gpu:\n    readyTimeout: ten minutes\n",
		"bad pull policy":              "image:\n  pullPolicy: Sometimes\n",
		"bad toleration operator":      "workers:\n  cpu:\n    tolerations: [{key: a, operator: Matches}]\n",
		"setting outside FLOORBENCH_":  "extraConfig:\n  AWS_SECRET_ACCESS_KEY: x\n",
		"unknown onnx provider":        "workers:\n  gpu:\n    onnxProvider: rocm\n",
		"non-numeric resource request": "workers:\n  cpu:\n    resources: {requests: {cpu: lots}}\n",
		"URL for the S3 host:port":     "s3:\n  endpoint: http://minio:9000\n",
		"agent credential in values":   "agentCredentials:\n  secretName: agents\n  optional: true\n  HOSTED_KEY: sk-0000\n",
		"agent Secret not a name":      "agentCredentials:\n  secretName: Lab_Agents\n  optional: true\n",
	} {
		t.Run(name, func(t *testing.T) {
			file := writeTemp(t, "values.yaml", []byte(values))
			_, err := h.run("lint", "--strict", chartDir, "--values", file)
			if err == nil || !strings.Contains(err.Error(), "schema") {
				t.Errorf("helm lint accepted %q (err %v)", values, err)
			}
		})
	}
}

func TestTemplateGolden(t *testing.T) {
	h := newHelm(t)
	for name, values := range valueCases(t) {
		t.Run(name, func(t *testing.T) {
			golden(t, filepath.Join("testdata", "rendered", name+".yaml"), h.template(values))
		})
	}
}

// kubeconform validates every rendered object against the API schemas of
// the Kubernetes release the tests target, closed to unknown fields.
type kubeconform struct {
	bin, schemas string
}

func newKubeconform(t *testing.T) kubeconform {
	t.Helper()
	return kubeconform{
		bin:     testenv.Tool(t, "kubeconform", "kubeconform"),
		schemas: testenv.Path(t, "kubeschemas", "kubeschemas"),
	}
}

func (k kubeconform) validate(file string) (string, error) {
	out, err := exec.Command(k.bin, "-strict", "-summary",
		"-kubernetes-version", strings.TrimPrefix(kubeVersion, "v"),
		"-schema-location", k.schemas+"/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json",
		file).CombinedOutput()
	return string(out), err
}

func TestRenderedObjectsValidate(t *testing.T) {
	h, k := newHelm(t), newKubeconform(t)
	for name, values := range valueCases(t) {
		t.Run(name, func(t *testing.T) {
			out, err := k.validate(writeTemp(t, "rendered.yaml", h.template(values)))
			if err != nil || !strings.Contains(out, "Invalid: 0, Errors: 0, Skipped: 0") {
				t.Errorf("kubeconform: %v\n%s", err, out)
			}
		})
	}
}

// The validation above can fail: a misspelt field and a wrong type in a
// rendered Deployment are caught.
func TestValidationCatchesBrokenObjects(t *testing.T) {
	h, k := newHelm(t), newKubeconform(t)
	rendered := string(h.template("testdata/values/defaults.yaml"))
	for name, broken := range map[string]string{
		"misspelt field": strings.Replace(rendered, "terminationGracePeriodSeconds:", "terminationGracePeriod:", 1),
		"wrong type":     strings.Replace(rendered, "replicas: 2", "replicas: two", 1),
	} {
		t.Run(name, func(t *testing.T) {
			if broken == rendered {
				t.Fatal("the replacement did not apply; the rendering changed")
			}
			out, err := k.validate(writeTemp(t, "broken.yaml", []byte(broken)))
			if err == nil {
				t.Errorf("kubeconform accepted a broken Deployment:\n%s", out)
			}
		})
	}
}
