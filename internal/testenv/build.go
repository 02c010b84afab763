package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Build builds the Go command in pkg (a path relative to the working
// directory) with extra build flags and returns the executable's path. The
// executable stays in the user's cache, one per package folder and flags,
// so that the next run finds it up to date and go build skips the link
// (about ten CPU-seconds for floorbench); go build relinks whenever
// anything it was built from changed.
func Build(pkg string, flags ...string) (string, error) {
	abs, err := filepath.Abs(pkg)
	if err != nil {
		return "", err
	}
	dir, err := cacheDir(abs, flags)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, filepath.Base(abs))
	args := append(append([]string{"build"}, flags...), "-o", out, ".")
	cmd := exec.Command("go", args...)
	cmd.Dir = abs
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
	}
	return out, nil
}

// BuildWith runs a build script (a path relative to the working
// directory) with an output folder as its argument and returns the
// folder: scripts/build.sh builds floorbench and floorbench-full there,
// as users build them. The folder stays in the user's cache like
// Build's.
func BuildWith(script string) (string, error) {
	abs, err := filepath.Abs(script)
	if err != nil {
		return "", err
	}
	dir, err := cacheDir(abs, nil)
	if err != nil {
		return "", err
	}
	if msg, err := exec.Command(abs, dir).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", script, err, msg)
	}
	return dir, nil
}

// cacheDir is the folder in the user's cache that holds what is built
// from path with flags.
func cacheDir(path string, flags []string) (string, error) {
	key := sha256.Sum256([]byte(path + "\x00" + strings.Join(flags, "\x00")))
	root, err := os.UserCacheDir()
	if err != nil {
		root = os.TempDir()
	}
	dir := filepath.Join(root, "floorbench", "test-bin", hex.EncodeToString(key[:8]))
	return dir, os.MkdirAll(dir, 0o755)
}
