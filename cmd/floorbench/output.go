package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/atomicfile"
)

// Outputs never replace what the user did not ask to replace. A command
// that fills a folder (bundle get, corpus export) checks it first with
// checkOutDir and builds it with replaceDir; a command that writes named
// files into a folder (detect) checks them with checkOutFiles.

// checkOutDir accepts a folder path that does not exist or is an empty
// folder; with force also an existing file or non-empty folder, which
// replaceDir then replaces. The path must be given, its parent folder must
// exist, and it must not be the current folder or one above it, which
// nothing can replace.
func checkOutDir(flag, path string, force bool) error {
	if err := checkOutPath(flag, path); err != nil {
		return err
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if force {
		return nil
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s %s: exists and is not a folder (--force replaces it)", flag, path)
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s %s: folder is not empty (--force replaces it)", flag, path)
	}
	return nil
}

// checkOutPath refuses an output folder path that no command can fill: an
// empty one, the current folder or a folder above it, one whose parent
// folder does not exist.
func checkOutPath(flag, path string) error {
	if path == "" {
		return fmt.Errorf("%s: give a folder to write into (the empty path names none)", flag)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(abs, wd); err == nil && filepath.IsLocal(rel) {
			return fmt.Errorf("%s %s: is the current folder or one above it; give a new folder inside it", flag, path)
		}
	}
	parent := filepath.Dir(abs)
	if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s %s: its parent folder %s does not exist (create it first)", flag, path, filepath.Dir(filepath.Clean(path)))
	}
	return nil
}

// checkOutFiles accepts a folder path that is a folder or absent and in
// which none of names exists, unless force.
func checkOutFiles(flag, dir string, force bool, names ...string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s %s: exists and is not a folder", flag, dir)
	}
	if force {
		return nil
	}
	for _, name := range names {
		path := filepath.Join(dir, name)
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s %s: %s exists (--force replaces it)", flag, dir, name)
		}
	}
	return nil
}

// replaceDir builds the folder path with fill in a temporary folder beside
// it and renames it into place (atomicfile.WriteDir, with force
// ReplaceDir), so the folder appears whole or not at all. What was at
// path (checked by checkOutDir) is replaced only after fill succeeded;
// without force the final rename refuses a path that became a file or a
// non-empty folder meanwhile.
func replaceDir(path string, force bool, fill func(tmp string) error) error {
	if force {
		return atomicfile.ReplaceDir(path, ".", fill)
	}
	err := atomicfile.WriteDir(path, ".", fill)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w (--force replaces it)", err)
	}
	return err
}
