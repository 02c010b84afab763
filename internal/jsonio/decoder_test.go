package jsonio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
	"testing/iotest"
)

func TestDecoderReadsInOrderAndRejectsDuplicates(t *testing.T) {
	t.Parallel()
	d := NewDecoder([]byte(`{"b": [1, 2.5, -3e2, NaN, Infinity, -Infinity], "a": "x\u00e9\ud83d\ude00"}`))
	var keys []string
	var nums []float64
	var s string
	err := d.Object(func(k string) error {
		keys = append(keys, k)
		if k == "b" {
			return d.Array(func(int) error {
				v, err := d.Float()
				nums = append(nums, v)
				return err
			})
		}
		var err error
		s, err = d.String()
		return err
	})
	if err != nil || d.End() != nil {
		t.Fatal(err)
	}
	if strings.Join(keys, ",") != "b,a" || s != "xé😀" {
		t.Errorf("keys %v string %q", keys, s)
	}
	if nums[0] != 1 || nums[1] != 2.5 || nums[2] != -300 || !math.IsNaN(nums[3]) || !math.IsInf(nums[4], 1) || !math.IsInf(nums[5], -1) {
		t.Errorf("numbers %v", nums)
	}
	err = NewDecoder([]byte("{\"a\": 1,\n  \"a\": 2}")).Skip()
	if err == nil || err.Error() != `line 2 col 3: duplicate key "a"` {
		t.Errorf("duplicate key: %v", err)
	}
}

func TestDecoderErrorsCarryPositions(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`[1, 2,]`:        "line 1 col 7: invalid character ']', expected a value",
		"[1,\n 01]":      "line 2 col 2: malformed number",
		`{"a" 1}`:        `line 1 col 6: expected ':' after key "a"`,
		`"abc`:           "line 1 col 1: unterminated string",
		`[1] x`:          "line 1 col 5: unexpected data after the JSON document",
		`{"a": [1, {}]}`: "",
	}
	for in, want := range cases {
		d := NewDecoder([]byte(in))
		err := d.Skip()
		if err == nil {
			err = d.End()
		}
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%q: error %q, want %q", in, got, want)
		}
	}
	if _, err := NewDecoder([]byte(`"x"`)).Float(); err == nil || err.Error() != "line 1 col 1: expected number, found string" {
		t.Errorf("type error: %v", err)
	}
	if _, err := NewDecoder([]byte(`1.5`)).Int(); err == nil {
		t.Error("1.5 is not an integer")
	}
	// Positions are computed only for the error, at the value's start.
	if _, err := NewDecoder([]byte("\n\n   1.5")).Int(); err == nil || err.Error() != "line 3 col 4: expected an integer, found 1.5" {
		t.Errorf("integer error position: %v", err)
	}
}

// BenchmarkObjectKeys reads an object of 200,000 keys (about 3 MB): linear
// in the input since positions are computed only for errors, not for every
// key (which would be quadratic).
func BenchmarkObjectKeys(b *testing.B) {
	var buf strings.Builder
	buf.WriteString("{")
	for i := range 200000 {
		if i > 0 {
			buf.WriteString(",\n")
		}
		fmt.Fprintf(&buf, `"k%d": %d`, i, i)
	}
	buf.WriteString("}")
	data := []byte(buf.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		d := NewDecoder(data)
		if err := d.Object(func(string) error { _, err := d.Int(); return err }); err != nil {
			b.Fatal(err)
		}
	}
}

// Expected strings are what Python 3.11's json.dumps writes.
func TestPythonFormatting(t *testing.T) {
	t.Parallel()
	floats := map[float64]string{3: "3.0", 1e-05: "1e-05", 1.5e-07: "1.5e-07", 1e16: "1e+16",
		123456789012345.6: "123456789012345.6", 0.0001: "0.0001", 12.3457: "12.3457", 1e22: "1e+22"}
	for v, want := range floats {
		if got := PyFloat(v); got != want {
			t.Errorf("PyFloat(%v) = %s, want %s", v, got, want)
		}
	}
	a, b := 0.1, 0.2
	if got := PyFloat(a + b); got != "0.30000000000000004" {
		t.Errorf("PyFloat(0.1+0.2) = %s", got)
	}
	if got := PyFloat(math.Copysign(0, -1)); got != "-0.0" {
		t.Errorf("negative zero: %s", got)
	}
	// Python's json reads 60 as an int and json.dumps writes it back so;
	// -0 reads as the int 0.
	for _, c := range []struct {
		x       float64
		integer bool
		want    string
	}{{60, true, "60"}, {60, false, "60.0"}, {math.Copysign(0, -1), true, "0"}, {-3, true, "-3"}, {60.5, false, "60.5"}, {1e16, true, "10000000000000000"}} {
		if got := PyNumber(c.x, c.integer); got != c.want {
			t.Errorf("PyNumber(%v, %v) = %s, want %s", c.x, c.integer, got, c.want)
		}
	}
	if got, want := PyString("a\u00e9\x7f\U0001F600\n\""), `"a\u00e9\u007f\ud83d\ude00\n\""`; got != want {
		t.Errorf("PyString = %s, want %s", got, want)
	}
}

func FuzzDecoder(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2, {"b": null}], "c": true}`, `[NaN, -Infinity]`, `"\ud800"`, `{"a":1,"a":2}`, `[1e400]`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(data)
		err := d.Skip()
		if err == nil {
			err = d.End()
		}
		// Whatever encoding/json accepts, we accept, except duplicate keys
		// (and huge numbers, which it accepts as text, and invalid UTF-8, which
		// it replaces).
		if err != nil && json.Valid(data) && !strings.Contains(err.Error(), "duplicate key") && !strings.Contains(err.Error(), "out of range") && !strings.Contains(err.Error(), "UTF-8") {
			t.Fatalf("valid JSON rejected: %v", err)
		}
	})
}

// trace walks the next value and writes what it read: a stream decoder
// must read every document as the decoder over its bytes does.
func trace(d *Decoder, out *strings.Builder) error {
	switch d.Peek() {
	case Object:
		out.WriteString("{")
		return d.Object(func(k string) error {
			fmt.Fprintf(out, "%q:", k)
			return trace(d, out)
		})
	case Array:
		out.WriteString("[")
		return d.Array(func(i int) error {
			fmt.Fprintf(out, "%d:", i)
			return trace(d, out)
		})
	case String:
		s, err := d.String()
		fmt.Fprintf(out, "%q ", s)
		return err
	case Number:
		v, integer, err := d.Number()
		fmt.Fprintf(out, "%v/%v ", v, integer)
		return err
	}
	return d.Skip()
}

func traceAll(d *Decoder) string {
	var out strings.Builder
	err := trace(d, &out)
	if err == nil {
		err = d.End()
	}
	if err != nil {
		line, col := d.Where()
		fmt.Fprintf(&out, "error %v, then at %d:%d", err, line, col)
	}
	return out.String()
}

func TestStreamDecoderKeepsAWindow(t *testing.T) {
	t.Parallel()
	var doc bytes.Buffer
	doc.WriteString(`{"probs": [`)
	for i := range 300_000 {
		if i > 0 {
			doc.WriteString(",\n ")
		}
		fmt.Fprintf(&doc, "0.%06d", i)
	}
	doc.WriteString(`], "x": 01}`)
	data := doc.Bytes()
	d := NewStreamDecoder(bytes.NewReader(data))
	got := traceAll(d)
	if want := traceAll(NewDecoder(data)); got != want {
		t.Errorf("a %d-byte stream reads\n%.300s\nnot\n%.300s", len(data), got[len(got)-300:], want[len(want)-300:])
	}
	if !strings.HasSuffix(got, `error line 300000 col 18: malformed number, then at 300000:18`) {
		t.Errorf("error at the end of a long stream: %s", got[len(got)-100:])
	}
	if cap(d.data) > 64<<10 {
		t.Errorf("a %d-byte stream grew the window to %d bytes", len(data), cap(d.data))
	}
}

func TestStreamDecoderReportsReadErrors(t *testing.T) {
	t.Parallel()
	broken := fmt.Errorf("disk on fire")
	d := NewStreamDecoder(io.MultiReader(strings.NewReader(`[1, 2`), iotest.ErrReader(broken)))
	err := d.Skip()
	if err == nil || err.Error() != "line 1 col 6: unexpected end of input in array" || d.ReadErr() != broken {
		t.Errorf("read error: parse %v, ReadErr %v", err, d.ReadErr())
	}
	// A document that fails early still reports the bad source behind it.
	d = NewStreamDecoder(io.MultiReader(strings.NewReader(`[1, x`+strings.Repeat(" ", 100<<10)), iotest.ErrReader(broken)))
	if err := d.Skip(); err == nil || d.drain() != broken {
		t.Errorf("drain after %v: %v", err, d.drain())
	}
	if err := NewStreamDecoder(strings.NewReader(`[1]`)).drain(); err != nil {
		t.Errorf("drain of a good stream: %v", err)
	}
}

func FuzzStreamDecoder(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2, {"b": null}], "c": true}`, `[NaN, -Infinity]`, `"\ud800"`, "{\"a\":1,\n\"a\":2}", `[1e400]`, `{`, `[01]`, "[\"a\\u00e9\", -0.5e-3]  x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := traceAll(NewDecoder(data))
		for _, r := range []io.Reader{iotest.OneByteReader(bytes.NewReader(data)), iotest.HalfReader(bytes.NewReader(data))} {
			if got := traceAll(NewStreamDecoder(r)); got != want {
				t.Fatalf("stream reads\n%s\nbytes read\n%s", got, want)
			}
		}
	})
}

// ReadStream reports what ReadFile reports, a bad source (a NUL byte, a
// file past the input limit) before a parse error met ahead of it.
func TestReadStreamReadsAsReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lim := limits.Default()
	lim.InputBytes = 200 << 10
	parse := func(d *Decoder) (string, error) {
		var out strings.Builder
		err := trace(d, &out)
		if err == nil {
			err = d.End()
		}
		return out.String(), err
	}
	for name, text := range map[string]string{
		"good":              `{"a": [1, 2.5, "x"]}`,
		"syntax":            `{"a": [1, x]}`,
		"syntax then NUL":   `{"a": [1, x]}` + strings.Repeat(" ", 100<<10) + "\x00",
		"NUL in a value":    "[1, 2\x00]",
		"trailing data":     `[1] [2]`,
		"empty":             ``,
		"string over reads": `["` + strings.Repeat("é", 50<<10) + `"]`,
		"over the limit":    `[1, x` + strings.Repeat(" ", 200<<10) + `]`,
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		want, wantErr := ReadFile(path, lim, func(data []byte) (string, error) { return parse(NewDecoder(data)) })
		got, err := ReadStream(path, lim, parse)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || (err == nil && got != want) {
			t.Errorf("%s: ReadStream %.80q, %v; ReadFile %.80q, %v", name, got, err, want, wantErr)
		}
	}
}

// chunkReader reads its data n bytes at a time.
type chunkReader struct {
	data []byte
	n    int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.data)
	r.data = r.data[k:]
	return k, nil
}

// floatsBoth reads data's array of numbers with Floats and with Array and
// Float, and returns what each read: the values' bits and the error.
func floatsBoth(data []byte, stream int) (fast, slow string) {
	read := func(floats bool) string {
		d := NewDecoder(data)
		switch stream {
		case 1:
			d = NewStreamDecoder(iotest.OneByteReader(bytes.NewReader(data)))
		case 2: // windows that end inside numbers and separators
			d = NewStreamDecoder(&chunkReader{data, 5})
		}
		var out strings.Builder
		record := func(j int, v float64) error {
			fmt.Fprintf(&out, "%d:%x ", j, math.Float64bits(v))
			if v > 10 {
				return fmt.Errorf("element %d: %v is too large", j, v)
			}
			return nil
		}
		var err error
		if floats {
			err = d.Floats(record)
		} else {
			err = d.Array(func(j int) error {
				v, err := d.Float()
				if err != nil {
					return &ElementError{Index: j, Err: err}
				}
				return record(j, v)
			})
		}
		if err == nil {
			err = d.End()
		}
		fmt.Fprintf(&out, "error %v", err)
		return out.String()
	}
	return read(true), read(false)
}

// Floats reads what Array and Float read, value for value to the last
// bit, and fails where they fail with the same error.
func TestFloatsReadsWhatFloatReads(t *testing.T) {
	t.Parallel()
	for _, s := range []string{`[0, 0.5, 1, -0, 0.1234, 0.30000000000000004, 123456789012345, 1234567890123456, 0.000001, 1e-5, 2.5E+3, NaN, -Infinity]`,
		`[]`, `[ 0.25 , 7 ]`, `[01]`, `[1.]`, `[.5]`, `[-]`, `[1.2.3]`, `[1,]`, `[0.1 0.2]`, `[1e400]`, `[0.75`, `{}`, `[11, 0.5]`, `[0.5, 20]`} {
		for stream := range 3 {
			fast, slow := floatsBoth([]byte(s), stream)
			if fast != slow {
				t.Errorf("%s (stream %v):\nFloats      %s\nArray+Float %s", s, stream, fast, slow)
			}
		}
	}
}

func FuzzFloats(f *testing.F) {
	for _, s := range []string{`[0, 0.5, 1, -0, 0.1234]`, `[1.]`, `[01, 2]`, `[1e5, NaN]`, `[0.123456789012345678]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for stream := range 3 {
			if fast, slow := floatsBoth(data, stream); fast != slow {
				t.Fatalf("stream %v:\nFloats      %s\nArray+Float %s", stream, fast, slow)
			}
		}
	})
}
