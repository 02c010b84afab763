package redact

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPeerRunes bounds what Peer keeps of one string from a peer.
const MaxPeerRunes = 200

// peerCut marks where Peer cut a string.
const peerCut = "..."

// MaxPeerOutRunes bounds what Peer returns: MaxPeerRunes and the mark
// of a cut. A reader of what Peer wrote checks this bound.
const MaxPeerOutRunes = MaxPeerRunes + len(peerCut)

// Masked is what Peer puts where a secret was.
const Masked = "[redacted]"

// Peer is a string that came from a peer (an agent's close reason, error
// code or message; a chat, speech or webhook endpoint's status line,
// header or body) made fit to print, log or record
// (docs/operations.md#strings-from-peers): control and format characters
// removed, every secret and its obvious encodings (base64 in any
// alignment, hex, URL and path escaping) replaced by Masked, and the
// whole cut to MaxPeerRunes runes, with no prefix of a secret left at the
// cut. A secret is what floorbench sent the peer: a credential, the
// query or user information of its URL. Every string from a peer goes
// through Peer where it enters, before anything else sees it.
func Peer(text string, secrets ...string) string {
	text = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, text)
	forms := secretForms(secrets)
	for _, f := range forms {
		text = strings.ReplaceAll(text, f, Masked)
	}
	if utf8.RuneCountInString(text) <= MaxPeerRunes {
		return text
	}
	i := 0
	for n := 0; n < MaxPeerRunes; n++ {
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	return cutPrefix(text[:i], forms) + peerCut
}

// secretForms are the strings Peer replaces: each secret as it is and in
// its obvious encodings, longest first so that a form inside another is
// replaced with it.
func secretForms(secrets []string) []string {
	seen := map[string]bool{}
	var forms []string
	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			forms = append(forms, f)
		}
	}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		add(s)
		add(url.QueryEscape(s))
		add(url.PathEscape(s))
		add(hex.EncodeToString([]byte(s)))
		add(strings.ToUpper(hex.EncodeToString([]byte(s))))
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			for _, f := range base64Cores(enc, s) {
				add(f)
			}
		}
	}
	slices.SortStableFunc(forms, func(a, b string) int { return len(b) - len(a) })
	return forms
}

// minBase64Core is the shortest base64 core Peer looks for: shorter ones
// match ordinary words.
const minBase64Core = 8

// base64Cores are the parts of s's base64 encoding that appear whatever
// comes before s in the encoded text ("Bearer "+s, "user:"+s): for each
// of the three alignments, the encoding of the whole 3-byte groups s
// fills.
func base64Cores(enc *base64.Encoding, s string) []string {
	var out []string
	for shift := range 3 {
		skip := (3 - shift) % 3
		if len(s) <= skip {
			continue
		}
		body := s[skip:]
		body = body[:len(body)/3*3]
		if core := enc.EncodeToString([]byte(body)); len(core) >= minBase64Core {
			out = append(out, core)
		}
	}
	return out
}

// cutPrefix removes from the end of text the longest beginning (of at
// least four bytes) of any form: what a cut left of a secret.
func cutPrefix(text string, forms []string) string {
	best := 0
	for _, f := range forms {
		for n := min(len(f)-1, len(text)); n >= 4 && n > best; n-- {
			if strings.HasSuffix(text, f[:n]) {
				best = n
				break
			}
		}
	}
	if best == 0 {
		return text
	}
	return text[:len(text)-best] + Masked
}
