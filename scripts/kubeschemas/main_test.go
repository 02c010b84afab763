package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

func generate(t *testing.T) string {
	t.Helper()
	out := t.TempDir()
	if err := run("testdata/swagger.json", "v1.37.2", out); err != nil {
		t.Fatal(err)
	}
	return out
}

func readSchema(t *testing.T, path string) schema {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// The file names are the ones kubeconform computes from apiVersion and kind.
func TestFileNamesFollowKubeconform(t *testing.T) {
	out := generate(t)
	for _, dir := range []string{"v1.37.2-standalone", "v1.37.2-standalone-strict"} {
		entries, err := os.ReadDir(filepath.Join(out, dir))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		want := []string{"configmap-v1.json", "deployment-apps-v1.json", "role-rbac-v1.json"}
		if !slices.Equal(names, want) {
			t.Errorf("%s holds %v, want %v", dir, names, want)
		}
	}
}

// A standalone file carries exactly the definitions its kind reaches.
func TestStandaloneCarriesReachableDefinitions(t *testing.T) {
	s := readSchema(t, filepath.Join(generate(t), "v1.37.2-standalone-strict", "deployment-apps-v1.json"))
	var got []string
	for name := range s["definitions"].(schema) {
		got = append(got, name)
	}
	slices.Sort(got)
	want := []string{
		"io.k8s.api.apps.v1.DeploymentSpec",
		"io.k8s.apimachinery.pkg.api.resource.Quantity",
		"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
		"io.k8s.apimachinery.pkg.util.intstr.IntOrString",
	}
	if !slices.Equal(got, want) {
		t.Errorf("definitions %v, want %v", got, want)
	}
}

// Strict schemas close objects with known properties and leave maps open;
// plain ones close nothing.
func TestStrictClosesObjects(t *testing.T) {
	out := generate(t)
	strict := readSchema(t, filepath.Join(out, "v1.37.2-standalone-strict", "deployment-apps-v1.json"))
	if strict["additionalProperties"] != false {
		t.Errorf("strict Deployment: additionalProperties %v, want false", strict["additionalProperties"])
	}
	meta := strict["definitions"].(schema)["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"].(schema)
	labels := meta["properties"].(schema)["labels"].(schema)
	if !reflect.DeepEqual(labels["additionalProperties"], schema{"type": []any{"string", "null"}}) {
		t.Errorf("strict labels: additionalProperties %v, want a string map", labels["additionalProperties"])
	}
	plain := readSchema(t, filepath.Join(out, "v1.37.2-standalone", "deployment-apps-v1.json"))
	if _, has := plain["additionalProperties"]; has {
		t.Errorf("plain Deployment is closed: %v", plain["additionalProperties"])
	}
}

// Values written in two forms in manifests accept both.
func TestIntOrStringAndQuantityTakeBothForms(t *testing.T) {
	defs := readSchema(t, filepath.Join(generate(t), "v1.37.2-standalone-strict", "deployment-apps-v1.json"))["definitions"].(schema)
	for name, want := range map[string]any{
		"io.k8s.apimachinery.pkg.util.intstr.IntOrString": []any{schema{"type": "string"}, schema{"type": "integer"}},
		"io.k8s.apimachinery.pkg.api.resource.Quantity":   []any{schema{"type": "string"}, schema{"type": "number"}},
	} {
		if got := defs[name].(schema)["oneOf"]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: oneOf %v, want %v", name, got, want)
		}
	}
	replicas := defs["io.k8s.api.apps.v1.DeploymentSpec"].(schema)["properties"].(schema)["replicas"].(schema)
	if !reflect.DeepEqual(replicas["type"], []any{"integer", "null"}) {
		t.Errorf("replicas type %v, want integer or null", replicas["type"])
	}
}
