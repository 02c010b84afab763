package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
)

// Corrupt is a stored object whose bytes do not have the sha256 its key
// names or the store recorded when it stored the object. Reading it again
// reads the same bytes: it is recomputed or removed, never retried.
type Corrupt struct {
	Key  string
	Want string // the hex sha256 the object must have
	Got  string // the hex sha256 of the bytes stored
}

func (e *Corrupt) Error() string {
	return fmt.Sprintf("stored object %s is corrupt: sha256 %s, expected %s", e.Key, short(e.Got), short(e.Want))
}

// short is a sha256's first 16 hex digits, enough to tell two apart in a
// message.
func short(sum string) string {
	if len(sum) > 16 {
		return sum[:16] + "…"
	}
	return sum
}

// verifyBuffer is how many bytes a Verified reader reads ahead.
const verifyBuffer = 32 << 10

// Verified is r, the object stored under key, checked as it is read
// against the hex sha256 want. The object's last byte is held back until
// r ends: a reader gets every byte only when they match, and otherwise a
// *Corrupt where io.EOF would be, so a decoder that reads the object to
// its end never completes on bad bytes. A reader that stops before the
// end has read bytes no check has covered; the readers of the store read
// to the end (GetBytes, a copy, a decoder that checks nothing follows).
func Verified(r io.ReadCloser, key, want string) io.ReadCloser {
	return &verified{r: r, h: sha256.New(), key: key, want: want}
}

type verified struct {
	r         io.ReadCloser
	h         hash.Hash
	key, want string
	buf       []byte // read from r and hashed; buf[off:n] is not yet handed out
	off, n    int
	end       error // how r ended: io.EOF when the sum matched, else a *Corrupt or r's error
}

func (v *verified) Read(p []byte) (int, error) {
	for v.end == nil && v.n-v.off < 2 {
		v.fill()
	}
	if v.end != nil && v.end != io.EOF {
		return 0, v.end
	}
	ready := v.n - v.off
	if v.end == nil {
		ready-- // held back until r shows whether it ends the object
	}
	if ready == 0 {
		return 0, v.end
	}
	c := copy(p, v.buf[v.off:v.off+ready])
	v.off += c
	return c, nil
}

// fill reads from r after the bytes not yet handed out, hashing what it
// reads; at r's end it compares the sum.
func (v *verified) fill() {
	if v.buf == nil {
		v.buf = make([]byte, verifyBuffer)
	}
	if v.off > 0 {
		v.n = copy(v.buf, v.buf[v.off:v.n])
		v.off = 0
	}
	m, err := v.r.Read(v.buf[v.n:])
	v.h.Write(v.buf[v.n : v.n+m])
	v.n += m
	switch {
	case err == io.EOF:
		v.end = io.EOF
		if got := hex.EncodeToString(v.h.Sum(nil)); got != v.want {
			v.end = &Corrupt{Key: v.key, Want: v.want, Got: got}
		}
	case err != nil:
		v.end = err
	}
}

func (v *verified) Close() error { return v.r.Close() }
