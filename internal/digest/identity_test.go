package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// An identity is the first 16 bytes of the SHA-256, in hex, and the JSON
// form hashes the encoding.
func TestIdentityIsTheTruncatedSHA256(t *testing.T) {
	sum := sha256.Sum256([]byte("corpus.json bytes"))
	if got, want := Identity([]byte("corpus.json bytes")), hex.EncodeToString(sum[:16]); got != want {
		t.Errorf("Identity %s, want %s", got, want)
	}
	if got, err := IdentityJSON(struct{ V int }{3}); err != nil || got != Identity([]byte(`{"V":3}`)) {
		t.Errorf("IdentityJSON %s, %v", got, err)
	}
	if _, err := IdentityJSON(func() {}); err == nil {
		t.Error("a value JSON cannot encode has an identity")
	}
}
