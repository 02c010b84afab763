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
	oneErrorLine(t, stdout, stderr, code, "prefix of 6 bundles: c406, c405, c404, c403, c402, ...")
	stdout, stderr, code = run(t, "bundle", "diff", "aa", "zz", "--config", "", "--store-dir", store)
	oneErrorLine(t, stdout, stderr, code, "bundle zz: no bundle has this id or prefix")
	if code != 2 {
		t.Errorf("bundle diff with an unknown id: exit %d, want 2", code)
	}
	stdout, stderr, code = run(t, "bundle", "show", "latest", "--config", "", "--store-dir", t.TempDir())
	oneErrorLine(t, stdout, stderr, code, "the store holds no bundle")
}
