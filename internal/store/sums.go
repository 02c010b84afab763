package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"
)

// Summing is a Store that records the hex sha256 of every object whose key
// Summed accepts under SumKey(key) as it stores the object, and checks
// every object it opens against that sum, or against the sha256 its key
// names (Named), as it is read (Get): objects not named by their content
// (tracks, model outputs, evaluations, bundles, cached generative outputs,
// a generated corpus's manifest) cannot change under a reader unnoticed.
// Stats and lists pass through.
type Summing struct {
	Store
	Summed func(key string) bool
	SumKey func(key string) string
	// Named is the full hex sha256 key names, for objects stored under
	// the hash of their content (nil: none are).
	Named func(key string) (sha string, ok bool)
}

// Put stores r under key and, when Summed(key), its sha256 under
// SumKey(key). The sum is written first when r can be read twice (the
// objects summed are JSON written from memory), the object last: a worker
// killed between the two leaves no object, so its retry, which finds no
// output, writes both again; an object that exists was stored after its
// sum. A stream that cannot be read twice is stored first and summed
// after.
func (s Summing) Put(ctx context.Context, key string, r io.Reader) error {
	if !s.Summed(key) {
		return s.Store.Put(ctx, key, r)
	}
	if b, ok := r.(interface{ Bytes() []byte }); ok { // a bytes.Buffer: its bytes are at hand
		h := sha256.New()
		h.Write(b.Bytes())
		if err := s.putSum(ctx, key, h); err != nil {
			return err
		}
		return s.Store.Put(ctx, key, r)
	}
	if rs, ok := r.(io.ReadSeeker); ok {
		start, err := rs.Seek(0, io.SeekCurrent)
		if err != nil {
			return err
		}
		h := sha256.New()
		if _, err := io.Copy(h, rs); err != nil {
			return err
		}
		if _, err := rs.Seek(start, io.SeekStart); err != nil {
			return err
		}
		if err := s.putSum(ctx, key, h); err != nil {
			return err
		}
		return s.Store.Put(ctx, key, rs)
	}
	h := sha256.New()
	if err := s.Store.Put(ctx, key, hashing(r, h)); err != nil {
		return err
	}
	return s.putSum(ctx, key, h)
}

func (s Summing) putSum(ctx context.Context, key string, h hash.Hash) error {
	return s.Store.Put(ctx, s.SumKey(key), strings.NewReader(hex.EncodeToString(h.Sum(nil))+"\n"))
}

// Get opens the object under key, checked as it is read against the
// sha256 its key names or the one recorded when it was stored (Verified):
// the reader ends in a *Corrupt, never at io.EOF, when the bytes differ.
// An object stored without a sum (by a floorbench from before sums were
// recorded) is read unchecked, as `store verify` lists it unrecorded.
func (s Summing) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := s.Store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	want, err := s.sum(ctx, key)
	if err != nil {
		r.Close()
		return nil, err
	}
	if want == "" {
		return r, nil
	}
	return Verified(r, key, want), nil
}

// sum is the sha256 key's object must have: the one its key names, or
// the one recorded for it ("" when there is none).
func (s Summing) sum(ctx context.Context, key string) (string, error) {
	if s.Named != nil {
		if sha, ok := s.Named(key); ok {
			return sha, nil
		}
	}
	if !s.Summed(key) {
		return "", nil
	}
	sum, err := ReadSum(ctx, s.Store, s.SumKey(key))
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the sum of %s: %w", key, err)
	}
	return sum, nil
}

// ReadLimit is the read limit of the store under the sums.
func (s Summing) ReadLimit() int64 { return ReadLimit(s.Store) }

// Unwrap is the store under the sums.
func (s Summing) Unwrap() Store { return s.Store }

// ReadSum reads the sha256 recorded under key (ErrNotFound: none).
func ReadSum(ctx context.Context, st Store, key string) (string, error) {
	data, err := GetBytes(ctx, st, key)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// hashing is r with every byte read also written to h. It keeps r's
// length when r tells it, so S3 uploads it in one piece.
func hashing(r io.Reader, h hash.Hash) io.Reader {
	t := io.TeeReader(r, h)
	if n := SizeOf(r); n >= 0 {
		return &sizedReader{Reader: t, left: n}
	}
	return t
}

type sizedReader struct {
	io.Reader
	left int64
}

func (r *sizedReader) Read(p []byte) (int, error) {
	n, err := r.Reader.Read(p)
	r.left -= int64(n)
	return n, err
}

// Len is how many bytes are left to read.
func (r *sizedReader) Len() int { return int(r.left) }

// SizeOf is how many bytes r has left to read, or -1 when it cannot
// tell: a store that uploads in parts (S3) sends a reader of known length
// in one piece.
func SizeOf(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len())
	case *os.File:
		fi, err := v.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		off, err := v.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1
		}
		return fi.Size() - off
	}
	return -1
}
