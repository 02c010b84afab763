// Package atomicfile writes a file, or a folder, whole or not at all:
// through a temporary one in the same folder, renamed into place once
// written, so a reader, or a run resumed after a crash, never sees part
// of one.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// File is a file being written under a temporary name beside path; Commit
// renames it into place. Several Files committed one after another give
// a folder whose files are all new or (but for a failing rename) all old.
type File struct {
	*os.File
	path      string
	committed bool
}

// Create creates the temporary file of path, an ordinary file (mode
// 0644), named after path with prefix before it (a name that readers of
// the folder skip) and a random suffix. The caller writes it, then calls
// Commit, and defers Discard, which removes it unless committed.
func Create(path, prefix string) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), prefix+filepath.Base(path)+"-*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{File: f, path: path}, nil
}

// Commit closes the file and renames it to its path.
func (f *File) Commit() error {
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), f.path); err != nil {
		return err
	}
	f.committed = true
	return nil
}

// Discard removes the temporary file unless Commit renamed it; path is
// then left as it was.
func (f *File) Discard() {
	if !f.committed {
		f.Close()
		os.Remove(f.Name())
	}
}

// Write creates path, an ordinary file (mode 0644), from what write
// writes, through a File (Create names its temporary file); if anything
// fails the temporary file is removed and path left as it was.
func Write(path, prefix string, write func(io.Writer) error) error {
	f, err := Create(path, prefix)
	if err != nil {
		return err
	}
	defer f.Discard()
	if err := write(f); err != nil {
		return err
	}
	return f.Commit()
}

// WriteFile is Write of data.
func WriteFile(path, prefix string, data []byte) error {
	return Write(path, prefix, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteDir creates the folder path (mode 0755) from what fill writes into
// a temporary folder beside it, named like Create's file, renamed into
// place once fill returns. An empty folder at path is replaced; anything
// else there, found once fill has returned, is an error wrapping
// fs.ErrExist. If anything fails the temporary folder is removed and
// path left as it was.
func WriteDir(path, prefix string, fill func(dir string) error) error {
	return writeDir(path, prefix, false, fill)
}

// ReplaceDir is WriteDir replacing whatever is at path: the old folder or
// file is moved aside first, put back if the rename fails, and removed
// after.
func ReplaceDir(path, prefix string, fill func(dir string) error) error {
	return writeDir(path, prefix, true, fill)
}

func writeDir(path, prefix string, replace bool, fill func(dir string) error) error {
	path = filepath.Clean(path)
	parent, base := filepath.Dir(path), filepath.Base(path)
	tmp, err := os.MkdirTemp(parent, prefix+base+"-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := fill(tmp); err != nil {
		return err
	}
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.Rename(tmp, path)
	case err != nil:
		return err
	case !replace:
		// os.Remove takes an empty folder only.
		if !info.IsDir() || os.Remove(path) != nil {
			return fmt.Errorf("%s: %w", path, fs.ErrExist)
		}
		return os.Rename(tmp, path)
	}
	old, err := os.MkdirTemp(parent, prefix+base+".old-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(old)
	aside := filepath.Join(old, base)
	if err := os.Rename(path, aside); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return errors.Join(err, os.Rename(aside, path))
	}
	return nil
}
