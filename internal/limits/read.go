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
func ReadInput(path string) ([]byte, error) {
	return readText(path, Current().InputBytes, "input_bytes")
}

// ReadSpec reads a YAML file (sweep spec, system spec, config) of at most
// SpecBytes.
func ReadSpec(path string) ([]byte, error) {
	return readText(path, Current().SpecBytes, "spec_bytes")
}

// readText reads a text file of at most max bytes. A regular file larger
// than max is refused before it is read; anything else (a pipe, a device)
// is read up to max bytes. A NUL byte, which no JSON or YAML text holds,
// ends the read at once: `--gold /dev/zero` is one error, not a process
// that fills its memory.
func readText(path string, max int64, key string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a file", path)
	}
	size := int64(64 << 10)
	if info.Mode().IsRegular() {
		if info.Size() > max {
			return nil, &OverError{Field: path, Value: fmt.Sprintf("a file of %d bytes", info.Size()), Key: key, Limit: fmt.Sprintf("%d bytes", max)}
		}
		size = info.Size() + 1 // +1: see the end of the file in one read
	}
	buf := make([]byte, 0, min(size, max+1))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > max {
				return nil, &OverError{Field: path, Value: fmt.Sprintf("more than %d bytes", max), Key: key, Limit: fmt.Sprintf("%d bytes", max)}
			}
			grown := make([]byte, len(buf), min(2*int64(cap(buf))+1, max+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		if i := bytes.IndexByte(buf[len(buf):len(buf)+n], 0); i >= 0 {
			return nil, fmt.Errorf("%s: not a text file (NUL byte at offset %d)", path, len(buf)+i)
		}
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			if int64(len(buf)) > max {
				return nil, &OverError{Field: path, Value: fmt.Sprintf("more than %d bytes", max), Key: key, Limit: fmt.Sprintf("%d bytes", max)}
			}
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
}
