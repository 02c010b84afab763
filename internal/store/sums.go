package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"strings"
)

// Summing is a Store that records the hex sha256 of every object whose key
// Summed accepts under SumKey(key) as it stores the object, so that
// `store verify` can check objects that are not named by their content
// (tracks, evaluations, bundles, a generated corpus's manifest). Reads and
// lists pass through.
type Summing struct {
	Store
	Summed func(key string) bool
	SumKey func(key string) string
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
	if n := readerSize(r); n >= 0 {
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
