package jsonio

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/floorbench/floorbench/internal/limits"
)

// Kind is the JSON type of the next value.
type Kind int

// The JSON types.
const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"invalid", "null", "boolean", "number", "string", "array", "object"}[k]
}

// SyntaxError is malformed JSON or a value of the wrong type, with where it is.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d col %d: %s", e.Line, e.Col, e.Msg) }

// Decoder is a pull parser over one JSON document. The caller walks the
// document in order: Object and Array call back once per member or item,
// and the callback must consume that value (read it or Skip it).
type Decoder struct {
	data []byte
	pos  int
}

// NewDecoder reads data, one JSON document.
func NewDecoder(data []byte) *Decoder { return &Decoder{data: data} }

// Where returns the line and column of the next value.
func (d *Decoder) Where() (line, col int) {
	d.space()
	return d.lineCol(d.pos)
}

// lineCol is the line and column of byte offset pos. It scans the input
// from its start, so it is called only when an error is reported: reading
// stays linear in the input's size.
func (d *Decoder) lineCol(pos int) (line, col int) {
	line, col = 1, 1
	for _, c := range d.data[:pos] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// Errorf makes a SyntaxError at the next value.
func (d *Decoder) Errorf(format string, args ...any) error {
	line, col := d.Where()
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (d *Decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// Peek returns the kind of the next value without consuming it.
func (d *Decoder) Peek() Kind {
	d.space()
	if d.pos >= len(d.data) {
		return Invalid
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return Object
	case c == '[':
		return Array
	case c == '"':
		return String
	case c == 't' || c == 'f':
		return Bool
	case c == 'n':
		return Null
	case c == '-' || (c >= '0' && c <= '9') || c == 'N' || c == 'I':
		return Number
	}
	return Invalid
}

func (d *Decoder) expect(k Kind) error {
	got := d.Peek()
	if got == k {
		return nil
	}
	if got == Invalid {
		if d.pos >= len(d.data) {
			return d.Errorf("unexpected end of input, expected %s", k)
		}
		return d.Errorf("invalid character %q, expected %s", d.data[d.pos], k)
	}
	return d.Errorf("expected %s, found %s", k, got)
}

func (d *Decoder) literal(word string) bool {
	if len(d.data)-d.pos >= len(word) && string(d.data[d.pos:d.pos+len(word)]) == word {
		d.pos += len(word)
		return true
	}
	return false
}

// Object reads an object, calling fn with each key in file order; fn must
// consume the member's value. A key seen twice in one object is an error.
func (d *Decoder) Object(fn func(key string) error) error {
	if err := d.expect(Object); err != nil {
		return err
	}
	d.pos++
	seen := map[string]bool{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return nil
	}
	for {
		if d.Peek() != String {
			return d.Errorf("expected a string key")
		}
		at := d.pos // Peek skipped the space before the key
		key, err := d.String()
		if err != nil {
			return err
		}
		if seen[key] {
			line, col := d.lineCol(at)
			return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf("duplicate key %q", key)}
		}
		seen[key] = true
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return d.Errorf("expected ':' after key %q", key)
		}
		d.pos++
		if err := fn(key); err != nil {
			return err
		}
		d.space()
		if d.pos >= len(d.data) {
			return d.Errorf("unexpected end of input in object")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.Errorf("expected ',' or '}' in object")
		}
	}
}

// Array reads an array, calling fn with each index; fn must consume the item.
func (d *Decoder) Array(fn func(index int) error) error {
	if err := d.expect(Array); err != nil {
		return err
	}
	d.pos++
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := fn(i); err != nil {
			return err
		}
		d.space()
		if d.pos >= len(d.data) {
			return d.Errorf("unexpected end of input in array")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return nil
		default:
			return d.Errorf("expected ',' or ']' in array")
		}
	}
}

// Float reads a number. NaN, Infinity and -Infinity are accepted so that
// the caller can reject them with a message naming where they are.
func (d *Decoder) Float() (float64, error) {
	if err := d.expect(Number); err != nil {
		return 0, err
	}
	switch {
	case d.literal("NaN"):
		return math.NaN(), nil
	case d.literal("Infinity"):
		return math.Inf(1), nil
	case d.literal("-Infinity"):
		return math.Inf(-1), nil
	}
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	intStart := d.pos
	if n := digits(); n == 0 || (n > 1 && d.data[intStart] == '0') {
		d.pos = start
		return 0, d.Errorf("malformed number")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			d.pos = start
			return 0, d.Errorf("malformed number")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			d.pos = start
			return 0, d.Errorf("malformed number")
		}
	}
	v, err := strconv.ParseFloat(string(d.data[start:d.pos]), 64)
	if err != nil {
		// Only range errors reach here: the syntax was checked above.
		d.pos = start
		return 0, d.Errorf("number %s out of range", d.data[start:d.pos])
	}
	return v, nil
}

// Number reads a number as Float does and reports whether it was written
// as an integer (no fraction, no exponent): Python's json reads such a
// number as an int and writes it back without ".0".
func (d *Decoder) Number() (v float64, integer bool, err error) {
	d.space()
	start := d.pos
	if v, err = d.Float(); err != nil {
		return 0, false, err
	}
	literal := d.data[start:d.pos]
	integer = !math.IsNaN(v) && !math.IsInf(v, 0) && !bytes.ContainsAny(literal, ".eE")
	return v, integer, nil
}

// Int reads a number that must be an integer.
func (d *Decoder) Int() (int, error) {
	d.space()
	at := d.pos
	v, err := d.Float()
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		line, col := d.lineCol(at)
		return 0, &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf("expected an integer, found %v", v)}
	}
	return int(v), nil
}

// Bool reads true or false.
func (d *Decoder) Bool() (bool, error) {
	if err := d.expect(Bool); err != nil {
		return false, err
	}
	switch {
	case d.literal("true"):
		return true, nil
	case d.literal("false"):
		return false, nil
	}
	return false, d.Errorf("malformed literal")
}

// Null consumes a null if one is next and reports whether it did.
func (d *Decoder) Null() bool {
	if d.Peek() == Null && d.literal("null") {
		return true
	}
	return false
}

// String reads a string.
func (d *Decoder) String() (string, error) {
	if err := d.expect(String); err != nil {
		return "", err
	}
	start := d.pos
	d.pos++
	var out []byte
	for {
		if d.pos >= len(d.data) {
			d.pos = start
			return "", d.Errorf("unterminated string")
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			if !utf8.Valid(out) {
				d.pos = start
				return "", d.Errorf("string is not valid UTF-8")
			}
			return string(out), nil
		case c < 0x20:
			return "", d.Errorf("control character in string")
		case c == '\\':
			r, err := d.escape()
			if err != nil {
				return "", err
			}
			out = utf8.AppendRune(out, r)
		default:
			out = append(out, c)
			d.pos++
		}
	}
}

func (d *Decoder) escape() (rune, error) {
	d.pos++
	if d.pos >= len(d.data) {
		return 0, d.Errorf("unterminated escape")
	}
	c := d.data[d.pos]
	d.pos++
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := d.hex4()
		if err != nil {
			return 0, err
		}
		if utf16.IsSurrogate(r) && d.literal(`\u`) {
			low, err := d.hex4()
			if err != nil {
				return 0, err
			}
			return utf16.DecodeRune(r, low), nil
		}
		if utf16.IsSurrogate(r) {
			return utf8.RuneError, nil
		}
		return r, nil
	}
	return 0, d.Errorf("invalid escape %q", `\`+string(rune(c)))
}

func (d *Decoder) hex4() (rune, error) {
	if len(d.data)-d.pos < 4 {
		return 0, d.Errorf("short \\u escape")
	}
	v, err := strconv.ParseUint(string(d.data[d.pos:d.pos+4]), 16, 32)
	if err != nil {
		return 0, d.Errorf("invalid \\u escape")
	}
	d.pos += 4
	return rune(v), nil
}

// Skip consumes the next value whatever it is.
func (d *Decoder) Skip() error {
	switch d.Peek() {
	case Object:
		return d.Object(func(string) error { return d.Skip() })
	case Array:
		return d.Array(func(int) error { return d.Skip() })
	case String:
		_, err := d.String()
		return err
	case Number:
		_, err := d.Float()
		return err
	case Bool:
		_, err := d.Bool()
		return err
	case Null:
		if d.Null() {
			return nil
		}
	}
	if d.pos >= len(d.data) {
		return d.Errorf("unexpected end of input, expected a value")
	}
	return d.Errorf("invalid character %q, expected a value", d.data[d.pos])
}

// End checks that nothing but whitespace follows the document.
func (d *Decoder) End() error {
	d.space()
	if d.pos != len(d.data) {
		return d.Errorf("unexpected data after the JSON document")
	}
	return nil
}

// ReadFile reads path, at most the input limit (limits.ReadInput), and
// parses it with parse, prefixing a parse error with the path so the
// message names the file.
func ReadFile[T any](path string, parse func([]byte) (T, error)) (T, error) {
	data, err := limits.ReadInput(path)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := parse(data)
	if err != nil {
		return v, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
