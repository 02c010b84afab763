// Package store keeps floorbench's audio, tracks and bundles behind one
// small interface (docs/architecture.md#store-layout) with two implementations: a local directory
// (the embedded default) and S3 through minio-go (MinIO in clusters;
// package store/s3).
//
// Keys are slash-separated paths such as corpora/<hash>/<conv>/speaker_1.wav.
// Every key is checked by CheckKey before it touches a disk or a bucket,
// and user-supplied names go through SafeName first, so no name from a spec
// or a manifest can climb out of its prefix.
package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/floorbench/floorbench/internal/limits"
)

// ErrNotFound is returned (wrapped) when a key does not exist.
var ErrNotFound = errors.New("not found")

// Info describes a stored object.
type Info struct {
	Key  string
	Size int64
}

// Store is a flat namespace of immutable-by-convention objects.
type Store interface {
	// Put stores the content of r under key, replacing any object there.
	// The object appears whole or not at all.
	Put(ctx context.Context, key string, r io.Reader) error
	// Get opens the object under key; ErrNotFound when absent.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// Stat describes the object under key; ErrNotFound when absent.
	Stat(ctx context.Context, key string) (Info, error)
	// List returns the keys under prefix, sorted.
	List(ctx context.Context, prefix string) ([]string, error)
	// Describe names the store for messages (never credentials).
	Describe() string
}

var keySegment = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)

// ErrInvalidKey is what CheckKey's errors are (errors.Is): a key that no
// store accepts, whatever is stored.
var ErrInvalidKey = errors.New("invalid store key")

// keyError is CheckKey's error; its message names the key.
type keyError struct{ msg string }

func (e *keyError) Error() string        { return e.msg }
func (e *keyError) Is(target error) bool { return target == ErrInvalidKey }

// CheckKey rejects keys that are empty, absolute, have empty, "." or ".."
// segments, or characters outside [A-Za-z0-9._-] in a segment.
func CheckKey(key string) error {
	if key == "" {
		return &keyError{"store key is empty"}
	}
	for _, seg := range strings.Split(key, "/") {
		if !keySegment.MatchString(seg) || seg == "." || seg == ".." || strings.Contains(seg, "..") {
			return &keyError{fmt.Sprintf("store key %q: segment %q is not allowed (letters, digits, '.', '_', '-'; no empty, '.' or '..' segments)", key, seg)}
		}
	}
	return nil
}

// CheckPrefix is CheckKey for a prefix, which may be empty or end in "/".
func CheckPrefix(prefix string) error {
	if p := strings.TrimSuffix(prefix, "/"); p != "" {
		return CheckKey(p)
	}
	return nil
}

var unsafeRun = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// SafeName turns a user-supplied name into one key segment: runs of other
// characters become "-", leading dots and dashes go, and an empty result
// becomes "_". Different names can map to the same segment, so callers
// that need uniqueness add a hash.
func SafeName(name string) string {
	s := unsafeRun.ReplaceAllString(name, "-")
	s = strings.TrimLeft(s, ".-_")
	s = strings.ReplaceAll(s, "..", ".")
	if len(s) > 80 {
		s = s[:80]
	}
	if s == "" {
		return "_"
	}
	return s
}

// ReadLimiter is the optional ability of a store to say how large an
// object GetBytes reads whole: Local and S3 are given the configured input
// limit (WithReadLimit) when the configuration opens them.
type ReadLimiter interface {
	ReadLimit() int64
}

// ReadLimit is the most bytes GetBytes reads whole from s: its
// ReadLimiter's answer, or the default input limit.
func ReadLimit(s Store) int64 {
	if r, ok := s.(ReadLimiter); ok {
		if n := r.ReadLimit(); n > 0 {
			return n
		}
	}
	return limits.Default().InputBytes
}

// GetBytes reads a whole object of at most s's read limit (ReadLimit, the
// input limit, limits.Limits.InputBytes): the objects read whole are JSON
// (manifests, evaluations, bundles), and one past the limit is refused,
// not read.
func GetBytes(ctx context.Context, s Store, key string) ([]byte, error) {
	r, err := s.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	max := ReadLimit(s)
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err == nil && int64(len(data)) > max {
		return nil, &limits.OverError{Field: key, Value: fmt.Sprintf("more than %d bytes", max), Key: "input_bytes", Limit: fmt.Sprintf("%d bytes", max)}
	}
	return data, err
}

// PutBytes stores b under key, reading b in place (a bundle's results
// are megabytes: no copy of them).
func PutBytes(ctx context.Context, s Store, key string, b []byte) error {
	return s.Put(ctx, key, bytes.NewReader(b))
}

// Exists reports whether key exists.
func Exists(ctx context.Context, s Store, key string) (bool, error) {
	_, err := s.Stat(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
