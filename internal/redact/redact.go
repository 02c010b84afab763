// Package redact says what of a file an error message may quote
// (docs/operations.md#errors-quote-no-file-contents). An error about a file
// names the file, where in it (a line and column, or a field's path) and
// the kind of problem; from the file itself it quotes only names (a key,
// an id) that have the form floorbench's own keys and ids have, never a
// line, a string value, or a name of any other form: a password hash in
// /etc/shadow read as a spec has a key's position but not a key's form.
//
// It also makes what a peer sends fit to print (Peer,
// docs/operations.md#strings-from-peers): the one scrub every string from
// an agent, a chat, speech or webhook endpoint goes through.
package redact

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/floorbench/floorbench/internal/names"
)

// nameForm is the form of a name an error may quote: the keys of every
// floorbench format, conversation ids, speaker keys, preset and family
// names.
var nameForm = names.Plain(64)

// Name is s quoted when it has the form of a name, else "(not quoted)":
// the message around it says where it is.
func Name(s string) string {
	if nameForm.Match(s) {
		return `"` + s + `"`
	}
	return "(not quoted)"
}

// yamlField and yamlType are the two type errors of the YAML decoder
// (go.yaml.in/yaml/v3) that quote the document: an unknown key, and a
// value of the wrong type. They are compiled at their first use, not at
// start-up, which every process pays.
var (
	yamlField = lazy(`(?s)^(line \d+): field (.*) not found in type \S+$`)
	yamlType  = lazy("(?s)^(line \\d+): cannot unmarshal (\\S+) (`.*` )?into (\\S+)$")
	quoted    = lazy("`[^`]*`|\"(?:[^\"\\\\]|\\\\.)*\"")
	// word is what a message may keep of its own words: letters, a
	// number, a quoted name, one punctuation character in single quotes
	// (the syntax the parser expected), with punctuation after.
	word = lazy(`^([A-Za-z]+|\d+|"[A-Za-z0-9][A-Za-z0-9_.-]*"|'[^A-Za-z0-9\s]')[,;:.)]*$`)
)

// YAML is a YAML decoder's error as one line that quotes nothing of the
// document but keys of the form of a name: each problem is its line and
// kind ("line 3: unknown key \"sytems\"", "line 4: want an integer, not
// a string").
func YAML(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	// The decoder puts each problem on a line of its own, indented by two
	// spaces; a key it names may itself hold a line break.
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	var out []string
	for _, problem := range strings.Split(msg, "\n  ") {
		out = append(out, yamlLine(problem))
	}
	return errors.New(strings.Join(out, "; "))
}

func yamlLine(line string) string {
	if m := yamlField().FindStringSubmatch(line); m != nil {
		return m[1] + ": unknown key " + Name(m[2])
	}
	if m := yamlType().FindStringSubmatch(line); m != nil {
		return fmt.Sprintf("%s: want %s, not %s", m[1], goType(m[4]), yamlKind(strings.TrimPrefix(m[2], "!!")))
	}
	return Message(line)
}

// Message is a parser's message with what it quotes of a document taken
// out: it keeps its own words (letters, numbers, names in quotes of the
// form Name quotes), and each run of anything else becomes "(text of the
// file)". It is for the messages of parsers floorbench does not own (the
// YAML and XML decoders'), whose wording it cannot choose.
func Message(line string) string {
	line = quoted().ReplaceAllStringFunc(line, func(q string) string {
		if inner := q[1 : len(q)-1]; nameForm.Match(inner) {
			return `"` + inner + `"`
		}
		return "\x00"
	})
	var kept []string
	for _, tok := range strings.Fields(line) {
		if !word().MatchString(tok) {
			tok = "(text of the file)"
		}
		if n := len(kept); n == 0 || tok != kept[n-1] || tok != "(text of the file)" {
			kept = append(kept, tok)
		}
	}
	return strings.Join(kept, " ")
}

// yamlKind names a YAML tag as a reader knows it.
func yamlKind(tag string) string {
	switch tag {
	case "str":
		return "a string"
	case "int", "float":
		return "a number"
	case "bool":
		return "true or false"
	case "seq":
		return "a list"
	case "map":
		return "a mapping"
	case "null":
		return "nothing"
	}
	return "a value of another type"
}

// goType names a Go type the way a spec's reader knows it.
func goType(t string) string {
	t = strings.TrimPrefix(t, "*")
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a mapping"
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	}
	return "a mapping" // a struct
}

// JSON is an encoding/json decoding error that quotes nothing of the
// document but names: a syntax error keeps its offset and kind, a value of
// the wrong type its field and the two types, an unknown field its name
// when it has the form of one.
func JSON(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("byte %d: not valid JSON (%s)", syntax.Offset, Message(syntax.Error()))
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the document"
		}
		return fmt.Errorf("%s: want %s, not %s", field, goType(typ.Type.String()), jsonKind(typ.Value))
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("unknown field %s", Name(strings.Trim(f, `"`)))
	}
	return errors.New(Message(err.Error()))
}

// jsonKind names the JSON kind an UnmarshalTypeError reports.
func jsonKind(v string) string {
	switch {
	case v == "string", v == "object", v == "array", v == "bool":
		return map[string]string{"string": "a string", "object": "a mapping", "array": "a list", "bool": "true or false"}[v]
	case strings.HasPrefix(v, "number"):
		return "a number"
	}
	return "a value of another type"
}

// lazy is a regular expression compiled at its first use.
func lazy(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
