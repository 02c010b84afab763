package docs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the import path of the repository's module.
const module = "github.com/floorbench/floorbench"

// A tier is one layer of docs/architecture.md#packages. A package may import
// packages of its own tier and of the tiers below it, never above. In a
// tier of independent packages (Peers false) a package imports no other
// package of its tier, except the pairs peerImports allows.
type tier struct {
	Name     string
	Peers    bool // packages of the tier may import each other
	Packages []string
}

// tiers lists every package of the module from the bottom up. A package
// that is in no tier fails the test: a new package takes its place here
// and in docs/architecture.md#packages.
var tiers = []tier{
	{"leaf", true, []string{
		"internal/limits", "internal/version", "internal/childenv", "internal/swbd", "internal/digest",
		"internal/keys", "internal/dialogue", "internal/jsonio", "internal/audio", "internal/store",
		"internal/cluster", "internal/floor", "internal/testenv", "internal/cluster/clustertest",
		"internal/figure", "internal/agent/proto", "internal/redact", "internal/webhook", "internal/openai",
		"internal/names", "internal/features", "internal/features/reference", "internal/credential",
	}},
	{"domain", false, []string{
		"internal/corpus", "internal/synth", "internal/score", "internal/detect",
	}},
	{"composition", true, []string{
		"internal/generate", "internal/backend", "internal/backend/backendfixture", "internal/ingest/turnbench", "internal/ingest/turnbench/tbfixture",
		"internal/ingest/ami", "internal/detect/fromcorpus", "internal/report", "internal/audit",
		"internal/audit/auditfixture", "internal/evaluate", "internal/bundle", "internal/bundle/bundlefixture", "internal/compare", "internal/spec", "internal/viewer", "internal/nightly",
		"internal/agent", "internal/agent/refagent", "internal/agent/harness", "internal/agent/seated",
		"internal/config",
	}},
	{"contract", true, []string{
		"internal/sweep", "internal/sweep/sweepfixture",
	}},
	{"orchestration", true, []string{
		"activities", "workflows",
	}},
	{"client", true, []string{
		"internal/temporalclient", "internal/inprocess", "internal/preview", "internal/quickstart", "internal/devserver",
	}},
	{"programs", true, []string{
		"cmd/floorbench", "scripts/kubeschemas", "scripts/corpussubset", "docs", "charts",
	}},
}

// peerImports are the imports allowed between packages of a tier of
// independent packages: the detectors write score tracks of the protocol.
var peerImports = map[string][]string{
	"internal/detect": {"internal/score"},
}

// layering returns the imports of graph (package -> its imports, both
// relative to the module) that break the tiers, and the packages that are
// in no tier, sorted.
func layering(graph map[string][]string) []string {
	level, peers := map[string]int{}, map[string]bool{}
	for i, t := range tiers {
		for _, p := range t.Packages {
			level[p], peers[p] = i, t.Peers
		}
	}
	var out []string
	for pkg, imports := range graph {
		from, ok := level[pkg]
		if !ok {
			out = append(out, fmt.Sprintf("%s: in no tier (add it to tiers and to docs/architecture.md#packages)", pkg))
			continue
		}
		for _, imp := range imports {
			to, ok := level[imp]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s imports %s, which is in no tier", pkg, imp))
			case to > from:
				out = append(out, fmt.Sprintf("%s (tier %s) imports %s (tier %s, above it)", pkg, tiers[from].Name, imp, tiers[to].Name))
			case to == from && !peers[pkg] && !slices.Contains(peerImports[pkg], imp):
				out = append(out, fmt.Sprintf("%s imports %s: packages of tier %s are independent of each other", pkg, imp, tiers[from].Name))
			}
		}
	}
	slices.Sort(out)
	return out
}

// moduleGraph is the import graph of the module's packages (tests not
// included), read with `go list -deps -json ./...`.
func moduleGraph(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("go list: %v", err)
	}
	graph := map[string][]string{}
	d := json.NewDecoder(out)
	for {
		var p struct {
			ImportPath string
			Imports    []string
			Module     *struct{ Path string }
		}
		if err := d.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Module == nil || p.Module.Path != module {
			continue
		}
		var imports []string
		for _, imp := range p.Imports {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				imports = append(imports, rel)
			}
		}
		graph[strings.TrimPrefix(p.ImportPath, module+"/")] = imports
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("go list -deps -json ./...: %v", err)
	}
	return graph
}

// No package imports upward: detect does not read corpora, corpus does not
// link the generator, no domain package imports the orchestration, and so
// on (docs/architecture.md#packages).
func TestNoPackageImportsUpward(t *testing.T) {
	graph := moduleGraph(t)
	if len(graph) < 30 {
		t.Fatalf("go list found %d packages of %s", len(graph), module)
	}
	for _, v := range layering(graph) {
		t.Error(v)
	}
}

// The checker itself: each kind of bad import is reported, and a graph
// that keeps to the tiers is not.
func TestLayeringReportsEachKindOfBadImport(t *testing.T) {
	good := map[string][]string{
		"internal/floor":          {"internal/jsonio", "internal/limits"},
		"internal/detect":         {"internal/score", "internal/floor"},
		"internal/bundle":         {"internal/audit", "internal/keys"},
		"workflows":               {"activities"},
		"internal/generate":       {"internal/corpus", "internal/synth"},
		"internal/temporalclient": {"workflows"},
		"activities":              {"internal/sweep"},
	}
	if v := layering(good); len(v) > 0 {
		t.Fatalf("a graph that keeps to the tiers: %q", v)
	}
	for _, c := range []struct {
		from, to, want string
	}{
		{"internal/detect", "internal/corpus", "packages of tier domain are independent of each other"},
		{"internal/corpus", "internal/synth", "packages of tier domain are independent of each other"},
		{"internal/floor", "internal/score", "(tier domain, above it)"},
		{"internal/bundle", "activities", "(tier orchestration, above it)"},
		{"internal/sweep", "workflows", "(tier orchestration, above it)"},
		{"workflows", "internal/inprocess", "(tier client, above it)"},
		{"internal/corpus", "internal/ingest/ami", "(tier composition, above it)"},
		{"activities", "cmd/floorbench", "(tier programs, above it)"},
		{"internal/corpus", "internal/elsewhere", "which is in no tier"},
		{"internal/elsewhere", "internal/limits", "in no tier"},
	} {
		v := layering(map[string][]string{c.from: {c.to}})
		if len(v) != 1 || !strings.Contains(v[0], c.want) {
			t.Errorf("%s -> %s: %q, want one report with %q", c.from, c.to, v, c.want)
		}
	}
}

// Every package of the tiers has its row in the packages table of
// docs/architecture.md, so the document and the check name the same
// packages.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, tr := range tiers {
		for _, p := range tr.Packages {
			if tr.Name == "programs" && p != "cmd/floorbench" {
				continue
			}
			if !strings.Contains(doc, "| `"+p+"` |") {
				t.Errorf("docs/architecture.md#packages has no row for %s", p)
			}
		}
	}
}
