package redact

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// A secret a peer sends back is masked in every obvious encoding, in any
// alignment, with control characters inside it or cut at the length
// bound; the rest of the text stays readable.
func TestPeerMasksTheSecretInEveryForm(t *testing.T) {
	const key = "sk-test-4242-secret/+="
	b64 := func(prefix string) string { return base64.StdEncoding.EncodeToString([]byte(prefix + key)) }
	for _, c := range []struct{ name, text, keep string }{
		{"plain", "Incorrect API key provided: " + key, "Incorrect API key provided"},
		{"bearer", "Authorization: Bearer " + key, "Authorization"},
		{"query escaped", "?api-key=" + url.QueryEscape(key), "api-key"},
		{"path escaped", "/v1/" + url.PathEscape(key), "/v1/"},
		{"hex", "key " + hex.EncodeToString([]byte(key)), "key"},
		{"base64 aligned", "basic " + b64(""), "basic"},
		{"base64 shifted 1", "basic " + b64("u"), "basic"},
		{"base64 shifted 2", "basic " + b64("us"), "basic"},
		{"url base64", "t=" + base64.URLEncoding.EncodeToString([]byte("x:"+key)), "t="},
		{"control characters inside", "key sk-test-42\x0042-se\u200bcret/+=", "key"},
		{"cut at the bound", strings.Repeat("a", MaxPeerRunes-6) + key, "aaaa"},
	} {
		got := Peer(c.text, key)
		for _, leak := range []string{key, "sk-test", "4242-secret", hex.EncodeToString([]byte(key))[:16]} {
			if strings.Contains(got, leak) {
				t.Errorf("%s: %q keeps %q", c.name, got, leak)
			}
		}
		if !strings.Contains(got, c.keep) || utf8.RuneCountInString(got) > MaxPeerRunes+len(Masked)+3 {
			t.Errorf("%s: %q, want %q kept and at most %d runes", c.name, got, c.keep, MaxPeerRunes)
		}
	}
	if got := Peer("line one\nline two\t\x1b[31mred", ""); got != "line oneline two[31mred" {
		t.Errorf("control characters: %q", got)
	}
	if got := Peer(strings.Repeat("é", 3*MaxPeerRunes)); utf8.RuneCountInString(got) != MaxPeerRunes+3 || !utf8.ValidString(got) {
		t.Errorf("a long text is cut to %d runes: %d", MaxPeerRunes, utf8.RuneCountInString(got))
	}
}
