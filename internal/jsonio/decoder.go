package jsonio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/redact"
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
	data []byte // the document, or a stream's window of it
	pos  int    // the next byte, in data
	tok  int    // where the token being read starts, in data

	// A stream's window drops what was read before tok whenever it needs
	// more; line and col are where data[0] is.
	r         io.Reader
	err       error // what ended r: io.EOF at its end
	line, col int
}

// NewDecoder reads data, one JSON document.
func NewDecoder(data []byte) *Decoder { return &Decoder{data: data, line: 1, col: 1} }

// NewStreamDecoder reads one JSON document from r, holding only a window
// of it (a token and a read's worth), so a file of millions of numbers is
// parsed without holding its bytes. Errors read the same as NewDecoder's;
// ReadErr tells whether reading r failed.
func NewStreamDecoder(r io.Reader) *Decoder {
	return &Decoder{data: make([]byte, 0, 64<<10), r: r, line: 1, col: 1}
}

// ReadErr returns the error reading a stream's source failed with (nil at
// its end, and for NewDecoder).
func (d *Decoder) ReadErr() error {
	if errors.Is(d.err, io.EOF) {
		return nil
	}
	return d.err
}

// drain reads what is left of a stream's source and returns ReadErr: a
// document that fails to parse still reports a bad source first, as when
// the whole file is read before it is parsed.
func (d *Decoder) drain() error {
	for d.r != nil && d.err == nil {
		d.pos, d.tok, d.data = 0, 0, d.data[:0]
		d.fill(1)
	}
	return d.ReadErr()
}

// more reports whether n more bytes are there to read, reading a stream's
// source for them.
func (d *Decoder) more(n int) bool { return len(d.data)-d.pos >= n || d.fill(n) }

// fill drops what the window holds before tok and reads until n bytes
// follow pos or the source ends.
func (d *Decoder) fill(n int) bool {
	if d.r == nil {
		return false
	}
	if cut := d.tok; cut > 0 {
		d.line, d.col = advance(d.line, d.col, d.data[:cut])
		d.data = d.data[:copy(d.data, d.data[cut:])]
		d.pos -= cut
		d.tok = 0
	}
	for len(d.data)-d.pos < n && d.err == nil {
		if len(d.data) == cap(d.data) {
			d.data = append(d.data, make([]byte, cap(d.data))...)[:len(d.data)]
		}
		m, err := d.r.Read(d.data[len(d.data):cap(d.data)])
		d.data = d.data[:len(d.data)+m]
		d.err = err
	}
	return len(d.data)-d.pos >= n
}

// advance moves a line and column past b.
func advance(line, col int, b []byte) (int, int) {
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return line + bytes.Count(b, []byte{'\n'}), len(b) - i
	}
	return line, col + len(b)
}

// Where returns the line and column of the next value.
func (d *Decoder) Where() (line, col int) {
	d.space()
	return d.lineCol(d.pos)
}

// lineCol is the line and column of byte offset pos in data. It scans data
// from its start (a stream's window from where it begins), so it is called
// only when an error is reported: reading stays linear in the input's size.
func (d *Decoder) lineCol(pos int) (line, col int) {
	return advance(d.line, d.col, d.data[:pos])
}

// Errorf makes a SyntaxError at the next value.
func (d *Decoder) Errorf(format string, args ...any) error {
	line, col := d.Where()
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (d *Decoder) space() {
	d.tok = d.pos
	for d.more(1) {
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
	if !d.more(1) {
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
		if !d.more(1) {
			return d.Errorf("unexpected end of input, expected %s", k)
		}
		return d.Errorf("invalid character %s, expected %s", character(d.data[d.pos]), k)
	}
	return d.Errorf("expected %s, found %s", k, got)
}

func (d *Decoder) literal(word string) bool {
	if d.more(len(word)) && string(d.data[d.pos:d.pos+len(word)]) == word {
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
	if d.more(1) && d.data[d.pos] == '}' {
		d.pos++
		return nil
	}
	for {
		if d.Peek() != String {
			return d.Errorf("expected a string key")
		}
		key, err := d.String()
		if err != nil {
			return err
		}
		if seen[key] {
			line, col := d.lineCol(d.tok) // the key's opening quote
			return &SyntaxError{Line: line, Col: col, Msg: "duplicate key " + redact.Name(key)}
		}
		seen[key] = true
		d.space()
		if !d.more(1) || d.data[d.pos] != ':' {
			return d.Errorf("expected ':' after key %s", redact.Name(key))
		}
		d.pos++
		if err := fn(key); err != nil {
			return err
		}
		d.space()
		if !d.more(1) {
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
	if d.more(1) && d.data[d.pos] == ']' {
		d.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := fn(i); err != nil {
			return err
		}
		d.space()
		if !d.more(1) {
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
	d.tok = d.pos // the window keeps the number from here: positions are tok-relative
	switch {
	case d.literal("NaN"):
		return math.NaN(), nil
	case d.literal("Infinity"):
		return math.Inf(1), nil
	case d.literal("-Infinity"):
		return math.Inf(-1), nil
	}
	sign := 0
	if d.data[d.pos] == '-' {
		d.pos++
		sign = 1
	}
	digits := func() int {
		n := 0
		for d.more(1) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if n := digits(); n == 0 || (n > 1 && d.data[d.tok+sign] == '0') {
		d.pos = d.tok
		return 0, d.Errorf("malformed number")
	}
	if d.more(1) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			d.pos = d.tok
			return 0, d.Errorf("malformed number")
		}
	}
	if d.more(1) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.more(1) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			d.pos = d.tok
			return 0, d.Errorf("malformed number")
		}
	}
	v, err := strconv.ParseFloat(string(d.data[d.tok:d.pos]), 64)
	if err != nil {
		// Only range errors reach here: the syntax was checked above.
		d.pos = d.tok
		return 0, d.Errorf("number out of range")
	}
	return v, nil
}

// ElementError is an error reading element Index of an array (Floats).
type ElementError struct {
	Index int
	Err   error
}

func (e *ElementError) Error() string { return fmt.Sprintf("[%d]: %v", e.Index, e.Err) }
func (e *ElementError) Unwrap() error { return e.Err }

// Floats reads an array of numbers, calling each(j, v) with number j: what
// Array with Float in its callback reads, value for value to the last bit,
// in one loop (a probability file's millions of frames). Plain decimals of
// up to 15 digits are converted directly, as strconv's exact path converts
// them; anything else goes through Float. An error reading number j is an
// *ElementError; each's errors are returned as they are.
func (d *Decoder) Floats(each func(j int, v float64) error) error {
	if err := d.expect(Array); err != nil {
		return err
	}
	d.pos++
	d.space()
	if d.more(1) && d.data[d.pos] == ']' {
		d.pos++
		return nil
	}
	for j := 0; ; j++ {
		// Most items are plain decimals whose separator is already in the
		// window: read them in one tight pass.
		if v, start, n, last, ok := plainItem(d.data[d.pos:]); ok {
			d.tok, d.pos = d.pos+start, d.pos+n
			if err := each(j, v); err != nil {
				return err
			}
			if last {
				return nil
			}
			continue
		}
		d.space()
		v, ok := d.decimal()
		if !ok {
			var err error
			if v, err = d.Float(); err != nil {
				return &ElementError{Index: j, Err: err}
			}
		}
		if err := each(j, v); err != nil {
			return err
		}
		d.space()
		if !d.more(1) {
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

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// plainItem reads, from b[0], an array item that decimal would read
// (whitespace, a plain decimal) and the whitespace and ',' or ']' after
// it, all within b: its value, where the number starts, how many bytes up
// to and including the separator, and whether that was ']'. Anything
// else, or an item b ends inside, is false, for the careful path to read
// or report.
func plainItem(b []byte) (v float64, start, n int, last, ok bool) {
	start = skipSpace(b, 0)
	v, m, ok := scanDecimal(b[start:])
	if !ok {
		return 0, 0, 0, false, false
	}
	i := skipSpace(b, start+m)
	if i >= len(b) || (b[i] != ',' && b[i] != ']') {
		return 0, 0, 0, false, false
	}
	return v, start, i + 1, b[i] == ']', true
}

// skipSpace returns the index of the first byte of b from i on that is
// not JSON whitespace (len(b) if none is).
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// maxPlainDecimal is the longest plain decimal: a sign, 15 digits and a
// point.
const maxPlainDecimal = 17

// scanDecimal reads a plain decimal from b[0], [-]digits[.digits] with at
// most 15 digits, no leading zero (but a lone one) and no exponent, as
// float64(digits) / 10^(fraction digits): both exact, so the quotient is
// the correctly rounded value ParseFloat gives; n is how many bytes it
// took. Anything else is false.
func scanDecimal(b []byte) (v float64, n int, ok bool) {
	i := 0
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	var mant uint64
	digits := func() int {
		from := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			mant = mant*10 + uint64(b[i]-'0')
			i++
		}
		return i - from
	}
	lead := i
	whole, frac := digits(), 0
	if whole == 0 || (whole > 1 && b[lead] == '0') {
		return 0, 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if frac = digits(); frac == 0 {
			return 0, 0, false // "1." is malformed: Float says so
		}
	}
	if whole+frac > 15 || (i < len(b) && (b[i] == 'e' || b[i] == 'E')) {
		return 0, 0, false
	}
	v = float64(mant) / exactPow10[frac]
	if neg {
		v = -v
	}
	return v, i, true
}

// decimal reads a plain decimal at pos (scanDecimal), once the window
// holds the byte after the longest one or the rest of the input.
// Anything else is left unread (false), for Float to read or report.
func (d *Decoder) decimal() (float64, bool) {
	d.tok = d.pos
	d.more(maxPlainDecimal + 1)
	v, n, ok := scanDecimal(d.data[d.pos:])
	if ok {
		d.pos += n
	}
	return v, ok
}

// Number reads a number as Float does and reports whether it was written
// as an integer (no fraction, no exponent): Python's json reads such a
// number as an int and writes it back without ".0".
func (d *Decoder) Number() (v float64, integer bool, err error) {
	if v, err = d.Float(); err != nil {
		return 0, false, err
	}
	literal := d.data[d.tok:d.pos]
	integer = !math.IsNaN(v) && !math.IsInf(v, 0) && !bytes.ContainsAny(literal, ".eE")
	return v, integer, nil
}

// Int reads a number that must be an integer.
func (d *Decoder) Int() (int, error) {
	v, err := d.Float()
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		line, col := d.lineCol(d.tok)
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
	d.tok = d.pos // the window keeps the string from here
	d.pos++
	// Most strings hold no escape: find the end and copy them once.
	if d.r == nil { // the whole document is here: find the quote at once
		if n := bytes.IndexByte(d.data[d.pos:], '"'); n >= 0 {
			plain := d.data[d.pos : d.pos+n]
			if bytes.IndexByte(plain, '\\') < 0 && !hasControl(plain) && utf8.Valid(plain) {
				d.pos += n + 1
				return string(plain), nil
			}
		}
	}
	for d.pos < len(d.data) || d.more(1) {
		if c := d.data[d.pos]; c == '"' || c == '\\' || c < 0x20 {
			break
		}
		d.pos++
	}
	if d.more(1) && d.data[d.pos] == '"' {
		plain := d.data[d.tok+1 : d.pos]
		if !utf8.Valid(plain) {
			d.pos = d.tok
			return "", d.Errorf("string is not valid UTF-8")
		}
		d.pos++
		return string(plain), nil
	}
	out := append([]byte(nil), d.data[d.tok+1:d.pos]...)
	for {
		if !d.more(1) {
			d.pos = d.tok
			return "", d.Errorf("unterminated string")
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			if !utf8.Valid(out) {
				d.pos = d.tok
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

// hasControl reports whether b holds a byte JSON forbids in a string.
func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

func (d *Decoder) escape() (rune, error) {
	d.pos++
	if !d.more(1) {
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
	return 0, d.Errorf("invalid escape")
}

func (d *Decoder) hex4() (rune, error) {
	if !d.more(4) {
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
	if !d.more(1) {
		return d.Errorf("unexpected end of input, expected a value")
	}
	return d.Errorf("invalid character %s, expected a value", character(d.data[d.pos]))
}

// End checks that nothing but whitespace follows the document.
func (d *Decoder) End() error {
	d.space()
	if d.more(1) {
		return d.Errorf("unexpected data after the JSON document")
	}
	return nil
}

// ReadFile reads path, at most lim's input limit (Limits.ReadInput), and
// parses it with parse, prefixing a parse error with the path so the
// message names the file.
func ReadFile[T any](path string, lim limits.Limits, parse func([]byte) (T, error)) (T, error) {
	data, err := lim.ReadInput(path)
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

// ReadStream parses the file at path as ReadFile does, through a stream
// Decoder (Limits.OpenInput), so that a file of millions of numbers is
// never held whole; a source that fails to read (a NUL byte, past the
// input limit) is reported as ReadFile reports it, even where the
// document fails to parse before that point.
func ReadStream[T any](path string, lim limits.Limits, parse func(*Decoder) (T, error)) (T, error) {
	var zero T
	f, err := lim.OpenInput(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	d := NewStreamDecoder(f)
	v, err := parse(d)
	if rerr := d.drain(); rerr != nil {
		return zero, rerr
	}
	if err != nil {
		return v, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// character describes an unexpected byte without quoting the file: JSON's
// own punctuation is named, anything else only by its class.
func character(c byte) string {
	switch {
	case strings.IndexByte("{}[],:\"", c) >= 0:
		return fmt.Sprintf("'%c'", c)
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		return "(a letter)"
	case c >= '0' && c <= '9':
		return "(a digit)"
	case c < 0x20 || c == 0x7f:
		return "(a control character)"
	case c >= 0x80:
		return "(a non-ASCII byte)"
	}
	return "(a symbol)"
}
