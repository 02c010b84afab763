package charts

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const manifestsDir = "../manifests"

const manifestHeader = "# Rendered from charts/floorbench with default values; do not edit.\n" +
	"# go test ./charts -run TestManifestsMatchChart -update rewrites it.\n"

// source matches the comment helm template writes above each object.
var source = regexp.MustCompile(`(?m)^# Source: [^/]+/templates/(\S+)\n`)

// kustomizeBase splits a rendering into one file per template, plus the
// kustomization that lists them.
func kustomizeBase(rendered []byte) map[string]string {
	files := map[string]string{}
	parts := source.Split(string(rendered), -1)
	names := source.FindAllStringSubmatch(string(rendered), -1)
	for i, m := range names {
		body := strings.TrimSuffix(strings.TrimSpace(parts[i+1]), "---")
		files[m[1]] += "---\n" + strings.TrimSpace(body) + "\n"
	}
	var resources []string
	for name, body := range files {
		files[name] = manifestHeader + body
		resources = append(resources, name)
	}
	slices.Sort(resources)
	files["kustomization.yaml"] = manifestHeader + fmt.Sprintf(
		"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: %s\nresources:\n  - %s\n",
		namespace, strings.Join(resources, "\n  - "))
	return files
}

// manifests/ is the chart rendered with default values: a change to the
// chart that is not carried over fails here.
func TestManifestsMatchChart(t *testing.T) {
	want := kustomizeBase(newHelm(t).template("testdata/values/defaults.yaml"))
	entries, err := os.ReadDir(manifestsDir)
	if err != nil && !*update {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := want[e.Name()]; ok {
			continue
		}
		if *update {
			if err := os.Remove(filepath.Join(manifestsDir, e.Name())); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("manifests/%s is not rendered from the chart any more (run go test ./charts -update)", e.Name())
	}
	for name, body := range want {
		golden(t, filepath.Join(manifestsDir, name), []byte(body))
	}
}

// The split loses nothing: every object of the rendering is in one file.
func TestKustomizeBaseKeepsEveryObject(t *testing.T) {
	rendered := newHelm(t).template("testdata/values/defaults.yaml")
	var all []byte
	for name, body := range kustomizeBase(rendered) {
		if name != "kustomization.yaml" {
			all = append(all, body...)
		}
	}
	if got, want := len(objects(t, all)), len(objects(t, rendered)); got != want || want == 0 {
		t.Errorf("manifests hold %d objects, the rendering %d", got, want)
	}
}
