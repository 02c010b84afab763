package main

import (
	"strings"
	"testing"
)

// Shell completion offers what exists: bundle ids from the store (with
// "latest"), the presets, the built-in systems, the splits and each
// command's output formats.
func TestCompletions(t *testing.T) {
	st := t.TempDir()
	a, b := storeBundle(t, st, "nightly", 0.5), storeBundle(t, st, "weekly", 0.6)
	complete := func(args ...string) []string {
		t.Helper()
		stdout, stderr, code := run(t, append([]string{"__complete"}, args...)...)
		if code != 0 {
			t.Fatalf("__complete %q: exit %d: %s", args, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if !strings.HasPrefix(lines[len(lines)-1], ":") {
			t.Fatalf("__complete %q: no directive in %q", args, stdout)
		}
		var names []string
		for _, l := range lines[:len(lines)-1] {
			names = append(names, strings.SplitN(l, "\t", 2)[0])
		}
		return names
	}
	has := func(got []string, want ...string) bool {
		for _, w := range want {
			found := false
			for _, g := range got {
				found = found || g == w
			}
			if !found {
				return false
			}
		}
		return true
	}
	if got := complete("bundle", "show", "--store-dir", st, ""); !has(got, "latest", a, b) || len(got) != 3 {
		t.Errorf("bundle show: %q, want latest, %s, %s", got, a, b)
	}
	if got := complete("bundle", "get", "--store-dir", st, a[:3]); !has(got, a) || has(got, b) && a[:3] != b[:3] {
		t.Errorf("bundle get %s…: %q", a[:3], got)
	}
	if got := complete("corpus", "generate", "--preset", ""); !has(got, "mptb", "tiny") {
		t.Errorf("presets: %q", got)
	}
	if got := complete("detect", "--system", ""); !has(got, "rms", "webrtcvad", "silero", "rms-endpointer") {
		t.Errorf("systems: %q", got)
	}
	if got := complete("detect", "--split", ""); !has(got, "dev", "test", "all") {
		t.Errorf("splits: %q", got)
	}
	if got := complete("score", "-o", ""); !has(got, "text", "json", "md", "csv", "latex") || len(got) != 5 {
		t.Errorf("score -o: %q, want the result formats", got)
	}
	if got := complete("bundle", "ls", "-o", ""); !has(got, "table", "json") || len(got) != 2 {
		t.Errorf("bundle ls -o: %q, want table and json", got)
	}
}
