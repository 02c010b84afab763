package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// Files created together and committed together replace theirs; one
// discarded leaves its own as it was and no temporary file.
func TestCreateCommitDiscard(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path, ".partial-")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("half")); err != nil {
		t.Fatal(err)
	}
	f.Discard()
	checkFolder(t, dir, "old")
	f, err = Create(path, ".partial-")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Discard()
	if _, err := f.Write([]byte("new")); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Discard()
	checkFolder(t, dir, "new")
}

// WriteDir fills a folder that appears whole, replaces an empty one,
// and refuses one that is not empty or a file, leaving it and no
// temporary folder; ReplaceDir replaces either; a failing fill changes
// nothing.
func TestWriteDirIsWholeOrNothing(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "out")
	fill := func(content string) func(string) error {
		return func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "out.json"), []byte(content), 0o644)
		}
	}
	if err := WriteDir(path, ".partial-", fill("first")); err != nil {
		t.Fatal(err)
	}
	checkFolder(t, path, "first")
	if err := WriteDir(path, ".partial-", fill("second")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("WriteDir over a full folder = %v, want fs.ErrExist", err)
	}
	checkFolder(t, path, "first")
	failed := errors.New("disk full")
	if err := ReplaceDir(path, ".partial-", func(dir string) error {
		return errors.Join(fill("half")(dir), failed)
	}); !errors.Is(err, failed) {
		t.Fatalf("ReplaceDir = %v, want the fill's error", err)
	}
	checkFolder(t, path, "first")
	if err := ReplaceDir(path, ".partial-", fill("third")); err != nil {
		t.Fatal(err)
	}
	checkFolder(t, path, "third")
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(empty, ".partial-", fill("fourth")); err != nil {
		t.Fatal(err)
	}
	checkFolder(t, empty, "fourth")
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(file, ".partial-", fill("fifth")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("WriteDir over a file = %v, want fs.ErrExist", err)
	}
	if err := ReplaceDir(file, ".partial-", fill("fifth")); err != nil {
		t.Fatal(err)
	}
	checkFolder(t, file, "fifth")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o755 {
			t.Errorf("%s: mode %v, want 0755", e.Name(), info.Mode().Perm())
		}
	}
	if !slices.Equal(names, []string{"empty", "file", "out"}) {
		t.Errorf("folder holds %q, want only empty, file and out", names)
	}
}
