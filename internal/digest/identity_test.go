package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
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

// A SHA-256 is exactly 64 lowercase hexadecimal digits.
func TestIsSHA256(t *testing.T) {
	ok := strings.Repeat("0a", 32)
	for s, want := range map[string]bool{ok: true, ok[1:]: false, ok + "0": false, strings.ToUpper(ok): false, strings.Repeat("g", 64): false} {
		if IsSHA256(s) != want {
			t.Errorf("IsSHA256(%q) = %v", s, !want)
		}
	}
}
