package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bundleStore writes bundles with the given ids (created in the order
// given: the last is the newest) into a local store and returns it.
func bundleStore(t *testing.T, ids ...string) string {
	t.Helper()
	dir := t.TempDir()
	for i, id := range ids {
		b := filepath.Join(dir, "bundles", id)
		if err := os.MkdirAll(b, 0o755); err != nil {
			t.Fatal(err)
		}
		manifest := fmt.Sprintf(`{"schema_version": 1, "bundle_id": %q, "name": "n%d", "created": "2026-01-%02dT00:00:00Z"}`, id, i, i+1)
		writeFile(t, b, "manifest.json", manifest)
		writeFile(t, b, "report.md", "report of "+id+"\n")
	}
	return dir
}

// Bundle commands take a unique prefix of a bundle id or latest; an
// ambiguous prefix is one error line naming at most five candidates.
func TestBundleIDsByPrefixAndLatest(t *testing.T) {
	store := bundleStore(t, "aa11", "ab22", "b333", "c401", "c402", "c403", "c404", "c405", "c406", "0ld")
	for _, c := range []struct{ arg, want string }{
		{"aa", "aa11"}, {"b", "b333"}, {"ab22", "ab22"}, {"latest", "0ld"}, {"c406", "c406"},
	} {
		stdout, stderr, code := run(t, "bundle", "show", c.arg, "--config", "", "--store-dir", store)
		if code != 0 || stdout != "report of "+c.want+"\n" {
			t.Errorf("bundle show %s: exit %d, stdout %q, stderr %q; want the report of %s", c.arg, code, stdout, stderr, c.want)
		}
	}
	out := t.TempDir() + "/got"
	stdout, stderr, code := run(t, "bundle", "get", "aa", "--out", out, "--config", "", "--store-dir", store)
	if code != 0 || !strings.Contains(stdout, "bundle aa11 in") {
		t.Errorf("bundle get aa: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	stdout, stderr, code = run(t, "bundle", "show", "a", "--config", "", "--store-dir", store)
	oneErrorLine(t, stdout, stderr, code, "prefix of 2 bundles: ab22, aa11")
	stdout, stderr, code = run(t, "bundle", "show", "c", "--config", "", "--store-dir", store)
	oneErrorLine(t, stdout, stderr, code, "prefix of 6 bundles, the first 5: c406, c405, c404, c403, c402")
	stdout, stderr, code = run(t, "bundle", "diff", "aa", "zz", "--config", "", "--store-dir", store)
	oneErrorLine(t, stdout, stderr, code, "bundle zz: no bundle has this id or prefix")
	if code != 2 {
		t.Errorf("bundle diff with an unknown id: exit %d, want 2", code)
	}
	stdout, stderr, code = run(t, "bundle", "show", "latest", "--config", "", "--store-dir", t.TempDir())
	oneErrorLine(t, stdout, stderr, code, "the store holds no bundle")
}

// bundle figures draws a bundle's figures from its results.json, as SVG
// or PNG; another format is one error line.
func TestBundleFigures(t *testing.T) {
	store := bundleStore(t, "aa11")
	writeFile(t, filepath.Join(store, "bundles", "aa11"), "results.json", `{"schema_version": 1, "bundle_id": "aa11",
 "protocol": {"fp_budget_dev": 0.1, "fp_budget_test": 0.15},
 "corpora": [{"name": "c", "kind": "mptb"}],
 "evaluations": [{"system": "s", "corpus": "c", "tasks": [{"task": "eot", "has_operating_point": true, "theta": 0.5,
   "dev": {"recall": 0.3, "fp_rate": 0.05},
   "dev_curve": [{"theta": 0.1, "recall": 0.5, "fp_rate": 0.2}, {"theta": 0.5, "recall": 0.3, "fp_rate": 0.05}]}]}]}`)
	for _, c := range []struct{ format, magic string }{{"svg", "<?xml"}, {"png", "\x89PNG"}} {
		out := filepath.Join(t.TempDir(), "figs")
		stdout, stderr, code := run(t, "bundle", "figures", "aa", "--out", out, "--format", c.format, "--config", "", "--store-dir", store)
		if code != 0 || stdout != "1 figures of bundle aa11 in "+out+"\n" {
			t.Fatalf("bundle figures --format %s: exit %d, stdout %q, stderr %q", c.format, code, stdout, stderr)
		}
		data, err := os.ReadFile(filepath.Join(out, "operating-curve-eot."+c.format))
		if err != nil || !strings.HasPrefix(string(data), c.magic) {
			t.Errorf("--format %s: %v, %.20q", c.format, err, data)
		}
	}
	stdout, stderr, code := run(t, "bundle", "figures", "aa", "--out", t.TempDir()+"/x", "--format", "bmp", "--config", "", "--store-dir", store)
	oneErrorLine(t, stdout, stderr, code, `--format "bmp": want svg or png`)
}
