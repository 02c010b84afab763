package jsonio

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// PyFloat formats x as Python's repr(float) does, which is what json.dumps
// writes: the shortest digits that read back to x, in fixed notation when
// the decimal exponent is in [-4, 16) (always with a fractional part, so 3.0
// and not 3), otherwise as d.ddde±XX.
func PyFloat(x float64) string { return string(AppendPyFloat(nil, x)) }

// AppendPyFloat appends PyFloat(x) to dst.
func AppendPyFloat(dst []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(dst, "NaN"...)
	case math.IsInf(x, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(x, -1):
		return append(dst, "-Infinity"...)
	}
	// Well inside [1e-4, 1e16) the shortest digits' exponent is in range
	// whatever they are: one formatting. Near the edges, where the digits
	// decide (9.99995e-05 against 0.0001), the exponent is read from them.
	if a := math.Abs(x); x == 0 || (a >= 2e-4 && a < 5e15) {
		return appendFixed(dst, x)
	}
	sci := strconv.FormatFloat(x, 'e', -1, 64) // e.g. -1.2345e-05
	mant, expPart, _ := strings.Cut(sci, "e")
	exp, _ := strconv.Atoi(expPart)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Appendf(dst, "%se%s%02d", mant, sign, exp)
	}
	return appendFixed(dst, x)
}

// appendFixed appends x's shortest digits in fixed notation, with ".0"
// when they have no fractional part.
func appendFixed(dst []byte, x float64) []byte {
	n := len(dst)
	dst = strconv.AppendFloat(dst, x, 'f', -1, 64)
	if bytes.IndexByte(dst[n:], '.') < 0 {
		dst = append(dst, ".0"...)
	}
	return dst
}

// PyNumber formats x as json.dumps writes the number Python read from
// JSON: an integer literal (see Decoder.Number) as Python's int, so 60 and
// -0 as 0, anything else as PyFloat.
func PyNumber(x float64, integer bool) string { return string(AppendPyNumber(nil, x, integer)) }

// AppendPyNumber appends PyNumber(x, integer) to dst.
func AppendPyNumber(dst []byte, x float64, integer bool) []byte {
	if !integer {
		return AppendPyFloat(dst, x)
	}
	if x == 0 {
		return append(dst, '0')
	}
	return strconv.AppendFloat(dst, x, 'f', -1, 64)
}

// PyString quotes s as json.dumps does with ensure_ascii: every rune outside
// printable ASCII becomes a \uXXXX escape (a surrogate pair above the BMP).
func PyString(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (r >= 0x7f && r < 0x10000):
			fmt.Fprintf(&b, `\u%04x`, r)
		case r >= 0x10000:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
