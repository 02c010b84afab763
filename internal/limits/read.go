package limits

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// ReadInput reads a JSON input (gold set, probabilities, submission,
// attributes) of at most InputBytes.
func (l Limits) ReadInput(path string) ([]byte, error) {
	return readText(path, l.InputBytes, "input_bytes")
}

// ReadSpec reads a YAML file (sweep spec, system spec, config) of at most
// SpecBytes.
func (l Limits) ReadSpec(path string) ([]byte, error) {
	return readText(path, l.SpecBytes, "spec_bytes")
}

// OpenInput opens a JSON input for reading as a stream, with ReadInput's
// checks: what Open refuses (anything but a regular file of at most
// InputBytes) is refused at once, and reading fails at a NUL byte or past
// the limit (a file that grows while it is read). Closing it closes the
// file.
func (l Limits) OpenInput(path string) (io.ReadCloser, error) {
	r, _, err := openText(path, l.InputBytes, "input_bytes")
	if err != nil {
		return nil, err
	}
	return r, nil
}

// textReader reads a text file of at most max bytes. A NUL byte, which no
// JSON or YAML text holds, ends the read at once: a binary file given as
// a spec is one error, not a parse of its bytes.
type textReader struct {
	f         *os.File
	path, key string
	max, n    int64 // n: the bytes read so far
}

// openText opens path by Open's rule for a textReader and returns the
// file's size.
func openText(path string, max int64, key string) (*textReader, int64, error) {
	f, err := Open(path, max, key)
	if err != nil {
		return nil, 0, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return &textReader{f: f, path: path, key: key, max: max}, info.Size(), nil
}

// Read reads at most one byte past the limit, which is then an error.
func (r *textReader) Read(p []byte) (int, error) {
	if room := r.max + 1 - r.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := r.f.Read(p)
	if i := bytes.IndexByte(p[:n], 0); i >= 0 {
		return 0, fmt.Errorf("%s: not a text file (NUL byte at offset %d)", r.path, r.n+int64(i))
	}
	r.n += int64(n)
	if r.n > r.max {
		return 0, &OverError{Field: r.path, Value: fmt.Sprintf("more than %d bytes", r.max), Key: r.key, Limit: fmt.Sprintf("%d bytes", r.max)}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return n, fmt.Errorf("%s: %w", r.path, err)
	}
	return n, err
}

func (r *textReader) Close() error { return r.f.Close() }

// readText reads a whole text file of at most max bytes (see textReader),
// in one read.
func readText(path string, max int64, key string) ([]byte, error) {
	r, size, err := openText(path, max, key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := make([]byte, 0, min(size+1, max+1)) // +1: see the end of the file in one read
	for {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(2*int64(cap(buf))+1, max+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
