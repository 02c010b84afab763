package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Identity is the identity hash, the one truncation of SHA-256 every
// identity uses (stored outputs, corpora, systems, model stages, sweeps,
// bundles, an endpoint's request): the first 16 bytes of the SHA-256 of
// data, in hex. A corpus's hash is that of its corpus.json, which holds the
// sha256 of every file. Files are named by their full SHA-256 instead
// (FileSHA256).
func Identity(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// IdentityJSON is Identity of v encoded as JSON.
func IdentityJSON(v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return Identity(data), nil
}
