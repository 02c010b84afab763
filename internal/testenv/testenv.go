// Package testenv finds and starts the real tools floorbench's tests run
// against (MinIO, the Temporal dev server, ...), built by scripts/setup.sh
// into $FLOORBENCH_TOOLS. When FLOORBENCH_REQUIRE_TOOLS=1 (as in
// scripts/test.sh and CI) a missing tool fails the test; otherwise the test
// is skipped with the setup command to run.
package testenv

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// ToolsDir is where scripts/setup.sh puts tools.
func ToolsDir() string {
	if d := os.Getenv("FLOORBENCH_TOOLS"); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "floorbench", "tools")
}

// Required reports whether missing tools must fail tests.
func Required() bool { return os.Getenv("FLOORBENCH_REQUIRE_TOOLS") == "1" }

// Tool returns the path of a tool binary built by setup component.
func Tool(t testing.TB, name, component string) string {
	t.Helper()
	p := filepath.Join(ToolsDir(), "bin", name)
	if _, err := os.Stat(p); err != nil {
		msg := name + " not found at " + p + ": run scripts/setup.sh " + component
		if Required() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Addr is 127.0.0.1:port.
func Addr(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// Program returns the path of a program installed from the system's
// packages by setup component (chromium, espeak-ng), found on PATH.
func Program(t testing.TB, name, component string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		msg := name + " not found on PATH: run scripts/setup.sh " + component
		if Required() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}
