package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// Path returns a file or directory that setup component installs under the
// tools directory (rel is relative to it), skipping or failing the test as
// Tool does when it is missing.
func Path(t testing.TB, rel, component string) string {
	t.Helper()
	p := filepath.Join(ToolsDir(), rel)
	if _, err := os.Stat(p); err != nil {
		msg := rel + " not found at " + p + ": run scripts/setup.sh " + component
		if Required() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}
