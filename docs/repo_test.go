package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxTracked is the largest file the repository may hold outside testdata/:
// build outputs (a binary is tens of MB) and data never enter it.
const maxTracked = 1 << 20

// maxShippedModel is the largest model file floorbench ships in models/
// (an .onnx file with its spec and card beside it): "a few MB at most"
// (models/floorgru, four GRUs in one file, is 2.2 MB).
const maxShippedModel = 4 << 20

func TestNoLargeTrackedFiles(t *testing.T) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if name == "" || strings.HasPrefix(name, "testdata/") || strings.Contains(name, "/testdata/") {
			continue
		}
		fi, err := os.Lstat(filepath.Join(root, name))
		if err != nil {
			continue // deleted in the work tree
		}
		limit := int64(maxTracked)
		if strings.HasPrefix(name, "models/") && strings.HasSuffix(name, ".onnx") {
			limit = maxShippedModel
		}
		if fi.Mode().IsRegular() && fi.Size() > limit {
			t.Errorf("%s: %d bytes tracked outside testdata/ (limit %d): a build output or data file", name, fi.Size(), limit)
		}
	}
}
