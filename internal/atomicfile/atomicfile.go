// Package atomicfile writes a file whole or not at all: through a
// temporary file in the same folder, renamed into place once written and
// closed, so a reader, or a run resumed after a crash, never sees part of
// one.
package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// Write creates path, an ordinary file (mode 0644), from what write
// writes. The temporary file is named after path with prefix before it (a
// name that readers of the folder skip) and a random suffix; it is removed
// if anything fails, and path is then left as it was.
func Write(path, prefix string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), prefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := errors.Join(f.Chmod(0o644), write(f)); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// WriteFile is Write of data.
func WriteFile(path, prefix string, data []byte) error {
	return Write(path, prefix, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
