package docs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// module is the import path of the repository's module.
const module = "github.com/floorbench/floorbench"

// A tier is one layer of docs/architecture.md#packages. A package may import
// packages of the tiers below its own, never above. In a tier of
// independent packages (Peers false) a package imports no other package of
// its tier, except the pairs peerImports declares; in the tiers above the
// contract (Peers true) a package may import its tier's packages.
type tier struct {
	Name     string
	Peers    bool // packages of the tier may import each other
	Packages []string
}

// tiers lists every package of the module from the bottom up. A package
// that is in no tier fails the test: a new package takes its place here
// and in docs/architecture.md#packages, in the lowest tier above
// everything it imports, among the packages it is like.
var tiers = []tier{
	// Packages that import no package of the module.
	{"leaf", false, []string{
		"internal/limits", "internal/version", "internal/childenv", "internal/swbd", "internal/digest",
		"internal/names", "internal/credential", "internal/figure", "internal/cluster",
		"internal/features", "internal/features/reference", "internal/atomicfile",
		"internal/backoff",
	}},
	// The first tools over the leaves: masking, the store and its keys,
	// audio, conversation ids.
	{"base", false, []string{
		"internal/redact", "internal/store", "internal/keys", "internal/audio", "internal/dialogue",
	}},
	// Formats and clients every domain may use: strict JSON, the S3 store,
	// test tools, HTTP clients (chat and speech, webhooks) and the agent
	// protocols.
	{"support", false, []string{
		"internal/jsonio", "internal/store/s3", "internal/testenv", "internal/cluster/clustertest", "internal/webhook",
		"internal/openai", "internal/agent/proto",
	}},
	// The floor events and the gold every domain package speaks.
	{"events", false, []string{"internal/floor"}},
	{"domain", false, []string{
		"internal/corpus", "internal/synth", "internal/score", "internal/detect",
	}},
	// What makes corpora: the generator's driver and backends, the ingest
	// of outside corpora.
	{"corpora", false, []string{
		"internal/backend", "internal/backend/backendfixture", "internal/generate",
		"internal/ingest/turnbench", "internal/ingest/turnbench/tbfixture", "internal/ingest/ami",
	}},
	// What measures a system on a corpus: its input, the audit, the
	// evaluation and the tables.
	{"measurement", false, []string{
		"internal/detect/fromcorpus", "internal/report", "internal/audit", "internal/audit/auditfixture",
		"internal/evaluate",
	}},
	// Voice agents: scenarios and scores, the harness, seated sessions,
	// the reference agent.
	{"agents", false, []string{
		"internal/agent", "internal/agent/harness", "internal/agent/seated", "internal/agent/refagent",
	}},
	// What a user writes: sweep specs and the configuration.
	{"specs", false, []string{"internal/spec", "internal/config"}},
	// What a sweep leaves and how it is read: bundles, comparisons,
	// schedules' records, the viewer.
	{"results", false, []string{
		"internal/bundle", "internal/bundle/bundlefixture", "internal/compare", "internal/nightly",
		"internal/viewer",
	}},
	{"contract", true, []string{
		"internal/sweep", "internal/sweep/sweepfixture", "internal/agent/sweepagent",
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
// independent packages, each a step of what the tier composes: the test
// tools open the MinIO they start as an S3 store, the detectors write score tracks of the protocol, the generator drives its
// backends, an evaluation holds the audit and the tables, the harness and
// the seated sessions play the agent's scenarios, the configuration opens
// specs, and a bundle's readers compare and record bundles.
var peerImports = map[string][]string{
	"internal/cluster/clustertest": {"internal/testenv"},
	"internal/testenv":             {"internal/store/s3"},
	"internal/detect":              {"internal/score"},
	"internal/generate":            {"internal/backend"},
	"internal/audit":               {"internal/detect/fromcorpus", "internal/report"},
	"internal/evaluate":            {"internal/audit", "internal/report"},
	"internal/agent/harness":       {"internal/agent"},
	"internal/agent/seated":        {"internal/agent", "internal/agent/harness"},
	"internal/config":              {"internal/spec"},
	"internal/compare":             {"internal/bundle"},
	"internal/nightly":             {"internal/bundle", "internal/compare"},
	"internal/viewer":              {"internal/bundle", "internal/compare", "internal/nightly"},
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
		{"internal/corpus", "internal/ingest/ami", "(tier corpora, above it)"},
		{"internal/limits", "internal/digest", "packages of tier leaf are independent of each other"},
		{"internal/keys", "internal/store", "packages of tier base are independent of each other"},
		{"internal/bundle", "internal/viewer", "packages of tier results are independent of each other"},
		{"internal/agent", "internal/agent/seated", "packages of tier agents are independent of each other"},
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

// The packages table of docs/architecture.md says what go list says: each
// row's tier is the package's tier above, and its imports column names
// exactly the floorbench packages it imports (without "internal/"; a note
// in parentheses after a name says why, and "none" is no import).
func TestArchitectureTableMatchesGoList(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := packageRows(string(data))
	graph := moduleGraph(t)
	for _, tr := range tiers {
		for _, p := range tr.Packages {
			row, ok := rows[p]
			if !ok {
				continue // TestArchitectureNamesEveryPackage reports it
			}
			if row.tier != tr.Name {
				t.Errorf("docs/architecture.md#packages puts %s in tier %s; it is in %s", p, row.tier, tr.Name)
			}
			if p == "cmd/floorbench" {
				continue // imports anything below
			}
			var want []string
			for _, imp := range graph[p] {
				want = append(want, strings.TrimPrefix(imp, "internal/"))
			}
			slices.Sort(want)
			if got := slices.Sorted(slices.Values(row.imports)); !slices.Equal(got, want) {
				t.Errorf("docs/architecture.md#packages says %s imports %q; go list says %q", p, got, want)
			}
		}
	}
}

// packageRow is a row of the packages table: its tier and the packages its
// imports column names.
type packageRow struct {
	tier    string
	imports []string
}

// packageRows reads the packages table of docs/architecture.md by package.
func packageRows(doc string) map[string]packageRow {
	notes := regexp.MustCompile(`\([^)]*\)`)
	name := regexp.MustCompile("`([^`]+)`")
	rows := map[string]packageRow{}
	_, table, _ := strings.Cut(doc, "| package | tier | job | imports (floorbench packages) |")
	for _, line := range strings.Split(table, "\n")[2:] {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 4 {
			break
		}
		pkg := strings.Trim(cells[0], "`")
		row := packageRow{tier: cells[1]}
		for _, m := range name.FindAllStringSubmatch(notes.ReplaceAllString(cells[3], ""), -1) {
			row.imports = append(row.imports, m[1])
		}
		rows[pkg] = row
	}
	return rows
}
