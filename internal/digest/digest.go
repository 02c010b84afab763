// Package digest hashes files: the sha256 that names every corpus file,
// model and uploaded input (docs/architecture.md#identities-and-versions).
package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
)

// FileSHA256 is the hex sha256 of a file floorbench wrote itself, read as
// a stream (parquet shards, meeting recordings and models are large).
// Files a user names are opened by limits.Open's rule and hashed with
// SHA256.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return SHA256(f, path)
}

// SHA256 is the hex sha256 of what r holds; path names it in an error.
func SHA256(r io.Reader, path string) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// IsSHA256 reports whether s is a SHA-256 as floorbench writes one: 64
// lowercase hexadecimal digits. Every manifest, recording and system spec
// that records a sha256 is checked by it.
func IsSHA256(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}
