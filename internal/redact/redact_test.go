package redact

import (
	"bytes"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type spec struct {
	Name      string `yaml:"name"`
	Resamples int    `yaml:"resamples"`
	Tags      []string
}

// A YAML error keeps its line and kind and quotes nothing of the document
// but a key of the form of a name.
func TestYAMLErrorsQuoteOnlyNames(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"nmae: x\n", `line 1: unknown key "nmae"`},
		{"root:$6$SECRETsalt$SECREThash:20228:0:99999:7::\n", "line 1: unknown key (not quoted)"},
		{"resamples: SECRET-many\n", "line 1: want an integer, not a string"},
		{"name: [SECRET]\n", "line 1: want a string, not a list"},
		{"name: x\nresamples: 1\nname: SECRET\n", `line 3: mapping key "name" already defined at line 1`},
		{"name: \"SECRET\n", "found unexpected end of stream"},
		{"a:\n\t- SECRET\n", "found character that cannot start any token"},
		{"name: [\n  SECRET\n", "did not find expected ',' or ']'"},
		{"bogus: 1\nresamples: SECRET\n", `line 1: unknown key "bogus"; line 2: want an integer, not a string`},
	} {
		dec := yaml.NewDecoder(bytes.NewReader([]byte(c.doc)))
		dec.KnownFields(true)
		var s spec
		err := dec.Decode(&s)
		if err == nil {
			t.Fatalf("%q: decoded", c.doc)
		}
		got := YAML(err).Error()
		if !strings.Contains(got, c.want) || strings.Contains(got, "SECRET") || strings.Contains(got, "\n") {
			t.Errorf("%q:\n got %s\nwant %s (one line, no SECRET)", c.doc, got, c.want)
		}
	}
}

func TestNameQuotesOnlyNames(t *testing.T) {
	for s, want := range map[string]string{
		"speaker_3":              `"speaker_3"`,
		"conv-01.a":              `"conv-01.a"`,
		"root:$6$x":              "(not quoted)",
		"../a":                   "(not quoted)",
		"":                       "(not quoted)",
		strings.Repeat("a", 65):  "(not quoted)",
		"-----BEGIN PRIVATE KEY": "(not quoted)",
	} {
		if got := Name(s); got != want {
			t.Errorf("Name(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzYAML(f *testing.F) {
	f.Add([]byte("root:$6$salt$hash:1::\n"), "SECRET")
	f.Add([]byte("resamples: [x\n"), "x")
	f.Fuzz(func(t *testing.T, doc []byte, secret string) {
		if len(secret) < 8 || nameForm.Match(secret) || strings.ContainsAny(secret, "\n\t ") {
			return
		}
		doc = append(append([]byte("resamples: "), []byte(secret)...), doc...)
		var s spec
		dec := yaml.NewDecoder(bytes.NewReader(doc))
		dec.KnownFields(true)
		if err := dec.Decode(&s); err != nil {
			if got := YAML(err).Error(); strings.Contains(got, secret) || strings.Contains(got, "\n") {
				t.Fatalf("%q: %s", doc, got)
			}
		}
	})
}
