package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A write that fails leaves the file as it was and no temporary file; one
// that succeeds replaces it whole, as an ordinary file.
func TestWriteIsWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("disk full")
	err := Write(path, ".partial-", func(w io.Writer) error {
		if _, err := w.Write([]byte("half")); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("Write = %v, want the writer's error", err)
	}
	checkFolder(t, dir, "old")
	if err := WriteFile(path, ".partial-", []byte("new")); err != nil {
		t.Fatal(err)
	}
	checkFolder(t, dir, "new")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", info.Mode().Perm())
	}
}

// checkFolder checks that dir holds out.json with content want and
// nothing else.
func checkFolder(t *testing.T, dir, want string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "out.json" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("folder holds %q, want only out.json", names)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "out.json")); err != nil || string(got) != want {
		t.Fatalf("out.json = %q (%v), want %q", got, err, want)
	}
}
