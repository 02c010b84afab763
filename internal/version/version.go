// Package version says which code a floorbench binary was built from, for
// the manifests of corpora and bundles.
package version

import (
	"crypto/sha256"
	"debug/elf"
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

// Executable is the file whose build names the code when nothing above
// is stamped (Code's last resort): this process's executable, unless a
// program that hands part of its work to another build of the same code
// names that build instead, so that both report one version (the
// floorbench front names floorbench-full).
var Executable = os.Executable

// Code is what manifests record as the code version, in this order: the
// stamped Revision; the module version of a released build; the VCS
// revision `go build` embeds in a checkout ("-dirty" with uncommitted
// changes); else the running executable's own identity, so even a binary
// built without any of these (`go run`, a copied source tree, a CI image
// built with -buildvcs=false) names its code exactly and never as
// "(devel)": the Go build ID the linker wrote into it ("build-" and 12 hex
// digits of its SHA-256; it hashes the binary's inputs and content, and is
// read in a few kB), or where there is none the SHA-256 of the whole
// executable ("exe-"). It is worked out once per process, by the first
// caller: only commands whose output records it (bundles, nightly
// records, --version) pay for it.
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
	return "floorbench " + executableID()
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

// executableID is "build-" and the first 12 hex digits of the SHA-256 of
// the running binary's Go build ID; without one, "exe-" and those of the
// SHA-256 of the binary; "exe-unknown" when it cannot be read.
func executableID() string {
	path, err := Executable()
	if err != nil {
		return "exe-unknown"
	}
	if id, ok := goBuildID(path); ok {
		sum := sha256.Sum256([]byte(id))
		return "build-" + hex.EncodeToString(sum[:])[:12]
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

// goBuildID reads the Go build ID from an ELF executable's
// .note.go.buildid section (what `go tool buildid` prints): a note named
// "Go" of type 4.
func goBuildID(path string) (string, bool) {
	f, err := elf.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sec := f.Section(".note.go.buildid")
	if sec == nil {
		return "", false
	}
	note, err := sec.Data()
	if err != nil || len(note) < 16 {
		return "", false
	}
	nameSize, descSize, kind := f.ByteOrder.Uint32(note), f.ByteOrder.Uint32(note[4:]), f.ByteOrder.Uint32(note[8:])
	if nameSize != 4 || kind != 4 || string(note[12:16]) != "Go\x00\x00" || uint64(descSize) > uint64(len(note)-16) || descSize == 0 {
		return "", false
	}
	return string(note[16 : 16+descSize]), true
}
