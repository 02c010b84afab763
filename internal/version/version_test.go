package version

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	for _, tc := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"release", debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{"checkout", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, "0123456789ab-dirty"},
		{"nothing recorded", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, ""},
	} {
		if got := fromBuildInfo(&tc.bi); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A binary built with no VCS information (as `go run` and the images
// build it) still names its code, never "(devel)": by the hash of the Go
// build ID the linker wrote into it, or without one by the hash of the
// executable; a stamped one names the stamp.
func TestBuildsWithoutVCSNameTheirCode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	dir := t.TempDir()
	const main = "./testdata/printversion"
	for _, tc := range []struct {
		name  string
		flags []string
		want  func(string) bool
	}{
		{"no vcs", []string{"-buildvcs=false"}, func(v string) bool {
			return strings.HasPrefix(v, "floorbench build-") && len(v) == len("floorbench build-")+12
		}},
		{"no vcs, no build id", []string{"-buildvcs=false", "-ldflags", "-buildid="}, func(v string) bool {
			return strings.HasPrefix(v, "floorbench exe-") && len(v) == len("floorbench exe-")+12
		}},
		{"stamped", []string{"-buildvcs=false", "-ldflags", "-X github.com/floorbench/floorbench/internal/version.Revision=r42"}, func(v string) bool { return v == "floorbench r42" }},
	} {
		bin := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
		args := append(append([]string{"build"}, tc.flags...), "-o", bin, main)
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			t.Fatalf("%s: go build: %v\n%s", tc.name, err, out)
		}
		out, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		if v := string(out); !tc.want(v) || strings.Contains(v, "devel") {
			t.Errorf("%s: code version %q", tc.name, v)
		}
		if tc.name == "no vcs" {
			id, err := exec.Command("go", "tool", "buildid", bin).Output()
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(bytes.TrimSpace(id))
			if want := "floorbench build-" + hex.EncodeToString(sum[:])[:12]; string(out) != want {
				t.Errorf("no vcs: code version %q, want %q from the build ID %s", out, want, id)
			}
		}
	}
}
