package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/atomicfile"
)

// Local stores objects as files under a root directory.
type Local struct {
	root      string
	readLimit int64 // 0: the default (ReadLimit)
}

// NewLocal opens (creating if needed) a directory store at root.
func NewLocal(root string) (*Local, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("local store %s: %w", abs, err)
	}
	return &Local{root: abs}, nil
}

// Describe names the store.
func (l *Local) Describe() string { return "local directory " + l.root }

// WithReadLimit is l with GetBytes reading objects of at most n bytes.
func (l *Local) WithReadLimit(n int64) *Local {
	c := *l
	c.readLimit = n
	return &c
}

// ReadLimit is what WithReadLimit set (0: the default).
func (l *Local) ReadLimit() int64 { return l.readLimit }

// Root is the directory objects live under.
func (l *Local) Root() string { return l.root }

func (l *Local) path(key string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", err
	}
	return filepath.Join(l.root, filepath.FromSlash(key)), nil
}

// Put writes to a temporary file in the target directory and renames it
// into place, so readers never see a partial object.
func (l *Local) Put(ctx context.Context, key string, r io.Reader) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	err = atomicfile.Write(p, putPrefix, func(w io.Writer) error {
		_, err := io.Copy(w, contextReader{ctx, r})
		return err
	})
	if err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	return nil
}

// putPrefix starts the name of an object being put, which List skips.
const putPrefix = ".put-"

// Get opens the file of key.
func (l *Local) Get(_ context.Context, key string) (io.ReadCloser, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	return f, err
}

// Stat describes the file of key.
func (l *Local) Stat(_ context.Context, key string) (Info, error) {
	p, err := l.path(key)
	if err != nil {
		return Info{}, err
	}
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.IsDir()) {
		return Info{}, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	if err != nil {
		return Info{}, err
	}
	return Info{Key: key, Size: fi.Size()}, nil
}

// List walks the directory under prefix.
func (l *Local) List(_ context.Context, prefix string) ([]string, error) {
	if err := CheckPrefix(prefix); err != nil {
		return nil, err
	}
	var keys []string
	// Walk only the directory the prefix's complete segments name.
	start := l.root
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		start = filepath.Join(l.root, filepath.FromSlash(prefix[:i]))
	}
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == start {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), putPrefix) {
			return nil
		}
		rel, _ := filepath.Rel(l.root, p)
		key := filepath.ToSlash(rel)
		if strings.HasPrefix(key, prefix) {
			keys = append(keys, key)
		}
		return nil
	})
	slices.Sort(keys)
	return keys, err
}

// contextReader stops a copy when its context ends.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
