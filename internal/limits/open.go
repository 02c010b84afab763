package limits

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Open opens a file floorbench reads on a user's behalf: a spec, a
// configuration, a gold set, a submission, a probability file, a model
// (docs/operations.md#files-floorbench-reads). The rule is the same for
// every one of them, on the submitting machine and on workers:
//
//   - the path names a regular file; a symbolic link is resolved and the
//     file it ends at must be a regular file (a link to a device, a pipe
//     or a folder is refused like the thing itself);
//   - the file holds at most max bytes (key names the limit in messages);
//   - nothing is read before both hold: a pipe or a device is refused
//     without being opened, and the file is opened without blocking and
//     checked to be the one just looked at.
//
// Anything else is one error naming the path and why.
func Open(path string, max int64, key string) (*os.File, error) {
	target, info, err := Check(path)
	if err != nil {
		return nil, err
	}
	if info.Size() > max {
		return nil, &OverError{Field: path, Value: fmt.Sprintf("a file of %d bytes", info.Size()), Key: key, Limit: fmt.Sprintf("%d bytes", max)}
	}
	// O_NONBLOCK: should a pipe take the file's place after the check,
	// opening it does not wait for a writer.
	f, err := os.OpenFile(target, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, named(path, err)
	}
	if now, err := f.Stat(); err != nil || !os.SameFile(info, now) {
		f.Close()
		return nil, fmt.Errorf("%s: replaced while being opened", path)
	}
	return f, nil
}

// Check applies Open's rule to path without opening it: it returns the
// file the path ends at (path itself, or where its links lead) and that
// file's information.
func Check(path string) (target string, info fs.FileInfo, err error) {
	info, err = os.Lstat(path)
	if err != nil {
		return "", nil, named(path, err)
	}
	target = path
	if info.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return "", nil, fmt.Errorf("%s: a symbolic link that leads nowhere: %w", path, unwrap(err))
		}
		if info, err = os.Lstat(target); err != nil {
			return "", nil, named(path, err)
		}
	}
	if err := regular(info); err != nil {
		if target != path {
			return "", nil, fmt.Errorf("%s: a link to %s, which %w", path, target, err)
		}
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	return target, info, nil
}

// regular says why what info describes is not a regular file.
func regular(info fs.FileInfo) error {
	switch m := info.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return errors.New("is a folder, not a file")
	case m&fs.ModeNamedPipe != 0:
		return errors.New("is a named pipe, not a regular file")
	case m&fs.ModeSocket != 0:
		return errors.New("is a socket, not a regular file")
	case m&fs.ModeDevice != 0:
		return errors.New("is a device, not a regular file")
	default:
		return fmt.Errorf("is not a regular file (mode %s)", m)
	}
}

// named is err naming path once, as os.Open's errors do ("open PATH: no
// such file or directory").
func named(path string, err error) error {
	return &fs.PathError{Op: "open", Path: path, Err: unwrap(err)}
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
