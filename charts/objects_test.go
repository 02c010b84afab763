package charts

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"regexp"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// objects decodes a rendered stream into typed Kubernetes objects.
func objects(t *testing.T, rendered []byte) []runtime.Object {
	t.Helper()
	docs := yaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(rendered)))
	var objs []runtime.Object
	for {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.TrimSpace(regexp.MustCompile(`(?m)^#.*$`).ReplaceAll(doc, nil))) == 0 {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("decode %s: %v", doc, err)
		}
		objs = append(objs, obj)
	}
}

func deployments(objs []runtime.Object) map[string]*appsv1.Deployment {
	found := map[string]*appsv1.Deployment{}
	for _, o := range objs {
		if d, ok := o.(*appsv1.Deployment); ok {
			found[d.Name] = d
		}
	}
	return found
}

// podSpec returns the pod template of a workload, or nil.
func podSpec(o runtime.Object) *corev1.PodSpec {
	switch o := o.(type) {
	case *appsv1.Deployment:
		return &o.Spec.Template.Spec
	case *batchv1.Job:
		return &o.Spec.Template.Spec
	}
	return nil
}

// Credentials reach the pods only from Secrets the operator made: the chart
// renders no Secret, and no variable that names a key, secret or password
// holds a literal.
func TestCredentialsOnlyByReference(t *testing.T) {
	h := newHelm(t)
	credential := regexp.MustCompile(`KEY|SECRET|PASSWORD`)
	reference := regexp.MustCompile(`^\$\([A-Z0-9_]+\)$`)
	for name, values := range valueCases(t) {
		t.Run(name, func(t *testing.T) {
			for _, o := range objects(t, h.template(values)) {
				if _, ok := o.(*corev1.Secret); ok {
					t.Errorf("the chart renders a Secret")
				}
				pod := podSpec(o)
				if pod == nil {
					continue
				}
				for _, c := range pod.Containers {
					for _, e := range c.Env {
						if credential.MatchString(e.Name) && e.ValueFrom == nil && !reference.MatchString(e.Value) {
							t.Errorf("container %s: %s holds a literal", c.Name, e.Name)
						}
					}
				}
			}
		})
	}
}

// standardLabels are the labels every object and every pod carries.
var standardLabels = []string{"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version",
	"app.kubernetes.io/managed-by", "app.kubernetes.io/part-of", "app.kubernetes.io/component"}

// Every object and every pod carries the standard labels; every
// Deployment's selector matches its own pods and no other Deployment's;
// every Service selects the pods of the Deployment of its name, no
// others, and targets ports those pods name.
func TestStandardLabels(t *testing.T) {
	h := newHelm(t)
	services := 0
	for name, values := range valueCases(t) {
		t.Run(name, func(t *testing.T) {
			objs := objects(t, h.template(values))
			for _, o := range objs {
				m, err := meta.Accessor(o)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range standardLabels {
					if m.GetLabels()[l] == "" {
						t.Errorf("%T %s has no label %s", o, m.GetName(), l)
					}
				}
			}
			deps := deployments(objs)
			for _, d := range deps {
				for _, l := range standardLabels {
					if d.Spec.Template.Labels[l] == "" {
						t.Errorf("Deployment %s: its pods have no label %s", d.Name, l)
					}
				}
				sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
				if err != nil || sel.Empty() {
					t.Errorf("Deployment %s: selector %v (%v)", d.Name, d.Spec.Selector, err)
					continue
				}
				for _, other := range deps {
					if got, want := sel.Matches(labels.Set(other.Spec.Template.Labels)), other == d; got != want {
						t.Errorf("Deployment %s: selector %s matches the pods of %s: %v, want %v", d.Name, sel, other.Name, got, want)
					}
				}
			}
			for _, o := range objs {
				svc, ok := o.(*corev1.Service)
				if !ok {
					continue
				}
				services++
				target := deps[svc.Name]
				if target == nil {
					t.Errorf("Service %s: no Deployment of its name", svc.Name)
					continue
				}
				if len(svc.Spec.Selector) == 0 {
					t.Errorf("Service %s selects nothing", svc.Name)
					continue
				}
				for _, d := range deps {
					if got, want := labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)), d == target; got != want {
						t.Errorf("Service %s: selector %v matches the pods of %s: %v, want %v", svc.Name, svc.Spec.Selector, d.Name, got, want)
					}
				}
				for _, p := range svc.Spec.Ports {
					if !namesPort(&target.Spec.Template.Spec, p.TargetPort.String()) {
						t.Errorf("Service %s: port %s targets %s, which no container of %s names", svc.Name, p.Name, p.TargetPort.String(), target.Name)
					}
				}
			}
		})
	}
	if services == 0 {
		t.Error("no values file renders a Service: the Service checks ran on nothing")
	}
}

// namesPort reports whether a container of pod declares the port name.
func namesPort(pod *corev1.PodSpec, name string) bool {
	for _, c := range pod.Containers {
		for _, p := range c.Ports {
			if p.Name == name {
				return true
			}
		}
	}
	return false
}

// A worker polls the queue its values name: the one a sweep spec's
// queues: section names.
func TestWorkerQueueFromValues(t *testing.T) {
	h := newHelm(t)
	d := deployments(objects(t, h.template("testdata/values/custom-scheduling.yaml")))["floorbench-worker-cpu"]
	if d == nil {
		t.Fatal("no cpu worker")
	}
	if args := d.Spec.Template.Spec.Containers[0].Args; !slices.Equal(args[:3], []string{"worker", "--queues", "cpu=lab-cpu"}) {
		t.Errorf("cpu worker args %v", args)
	}
}

func TestWorkerPerQueue(t *testing.T) {
	h := newHelm(t)
	objs := objects(t, h.template("testdata/values/defaults.yaml"))
	found := deployments(objs)
	for queue, provider := range map[string]string{"cpu": "cpu", "synth": "cpu", "gpu": "cuda"} {
		d := found["floorbench-worker-"+queue]
		if d == nil {
			t.Errorf("no worker Deployment for queue %s", queue)
			continue
		}
		c := d.Spec.Template.Spec.Containers[0]
		if want := []string{"worker", "--queues", queue + "=floorbench-" + queue, "--health-addr", ":8080"}; !slices.Equal(c.Args, want) {
			t.Errorf("%s worker args %v, want %v", queue, c.Args, want)
		}
		// Ready means polling with Temporal answering: the capacity claim
		// counts ready replicas.
		if p := c.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/readyz" || p.HTTPGet.Port.String() != "health" ||
			len(c.Ports) != 1 || c.Ports[0].Name != "health" || c.Ports[0].ContainerPort != 8080 {
			t.Errorf("%s worker: readiness probe %+v on ports %+v", queue, p, c.Ports)
		}
		if !slices.Contains(c.Env, corev1.EnvVar{Name: "FLOORBENCH_DEVICE", Value: provider}) {
			t.Errorf("%s worker: FLOORBENCH_DEVICE is not %s", queue, provider)
		}
		// Go code on the cores the worker requests: workers sharing a
		// node keep their Go code to their share.
		if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool {
			r := e.ValueFrom
			return e.Name == "GOMAXPROCS" && r != nil && r.ResourceFieldRef != nil && r.ResourceFieldRef.Resource == "requests.cpu" && r.ResourceFieldRef.Divisor.String() == "1"
		}) {
			t.Errorf("%s worker: GOMAXPROCS is not its CPU request: env %v", queue, c.Env)
		}
	}
	gpu := found["floorbench-worker-gpu"].Spec.Template.Spec
	if got := gpu.Containers[0].Resources.Limits["nvidia.com/gpu"]; got.Value() != 1 {
		t.Errorf("gpu worker: nvidia.com/gpu limit %v, want 1", got.String())
	}
	if gpu.RuntimeClassName == nil || *gpu.RuntimeClassName != "nvidia" {
		t.Errorf("gpu worker: runtimeClassName %v, want nvidia", gpu.RuntimeClassName)
	}
	if len(gpu.Tolerations) == 0 || gpu.Tolerations[0].Key != "nvidia.com/gpu" {
		t.Errorf("gpu worker: tolerations %v, want the nvidia.com/gpu taint tolerated", gpu.Tolerations)
	}
	cpu := found["floorbench-worker-cpu"].Spec.Template.Spec
	if _, has := cpu.Containers[0].Resources.Limits["nvidia.com/gpu"]; has || cpu.RuntimeClassName != nil {
		t.Errorf("cpu worker asks for a GPU: limits %v, runtimeClassName %v", cpu.Containers[0].Resources.Limits, cpu.RuntimeClassName)
	}
}

// Without gpu workers there is nothing to size: no gpu Deployment, no Role,
// and no capacity settings for the workers.
func TestGPUOffRendersNoCapacityControl(t *testing.T) {
	h := newHelm(t)
	objs := objects(t, h.template("testdata/values/gpu-off.yaml"))
	if _, has := deployments(objs)["floorbench-worker-gpu"]; has {
		t.Error("gpu worker rendered with workers.gpu.enabled=false")
	}
	for _, o := range objs {
		switch o := o.(type) {
		case *rbacv1.Role, *rbacv1.RoleBinding:
			t.Errorf("%T rendered without gpu workers", o)
		case *corev1.ConfigMap:
			if _, has := o.Data["FLOORBENCH_GPU_DEPLOYMENT"]; has {
				t.Error("FLOORBENCH_GPU_DEPLOYMENT set without gpu workers")
			}
		}
	}
}
