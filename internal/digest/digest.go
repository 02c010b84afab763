// Package digest hashes files: the sha256 that names every corpus file,
// model and uploaded input (docs/architecture.md#identities-and-versions).
package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// FileSHA256 is the hex sha256 of a file, read as a stream (parquet
// shards, meeting recordings and models are large).
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
