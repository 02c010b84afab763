// Package version says which code a floorbench binary was built from, for
// the manifests of corpora and bundles.
package version

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
	"sync"
)

// Revision is stamped at link time by builds outside a Git checkout (the
// images, `task build`):
//
//	go build -ldflags "-X github.com/floorbench/floorbench/internal/version.Revision=$(git describe --always --dirty)"
var Revision string

// Code is what manifests record as the code version, in this order: the
// stamped Revision; the module version of a released build; the VCS
// revision `go build` embeds in a checkout ("-dirty" with uncommitted
// changes); else the SHA-256 of the running executable, so even a binary
// built without any of these (`go run`, a copied source tree) names its
// code exactly and never as "(devel)".
func Code() string { return code() }

var code = sync.OnceValue(func() string {
	if Revision != "" {
		return "floorbench " + Revision
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := fromBuildInfo(bi); v != "" {
			return "floorbench " + v
		}
	}
	return "floorbench " + executableHash()
})

// fromBuildInfo is the module version or VCS revision a build recorded,
// or "" when it recorded neither.
func fromBuildInfo(bi *debug.BuildInfo) string {
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// executableHash is "exe-" and the first 12 hex digits of the SHA-256 of
// the running binary, or "exe-unknown" when it cannot be read.
func executableHash() string {
	path, err := os.Executable()
	if err != nil {
		return "exe-unknown"
	}
	f, err := os.Open(path)
	if err != nil {
		return "exe-unknown"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "exe-unknown"
	}
	return "exe-" + hex.EncodeToString(h.Sum(nil))[:12]
}
