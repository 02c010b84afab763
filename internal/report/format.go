package report

import (
	"math"
	"strconv"
	"strings"
)

// Undefined is what a table shows for an undefined number (a rate without
// a denominator, a latency without a TP).
const Undefined = "—"

// PValueFloor is the smallest p-value printed as a number; anything below
// it prints as "< 0.0001", since four decimals cannot tell it from zero.
const PValueFloor = 0.0001

// Fixed formats v with the given decimals, the one place every number a
// table shows goes through: NaN and infinities print as Undefined, and a
// value that rounds to zero prints without a sign ("0.000", never
// "-0.000").
func Fixed(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Undefined
	}
	return unsignZero(strconv.FormatFloat(v, 'f', decimals, 64))
}

// Signed is Fixed with an explicit "+" on positive values, for differences
// and offsets; a value that rounds to zero still prints unsigned.
func Signed(v float64, decimals int) string {
	s := Fixed(v, decimals)
	if s == Undefined || s[0] == '-' || isZero(s) {
		return s
	}
	return "+" + s
}

// PValue formats a p-value with four decimals, or "< 0.0001" below that.
func PValue(p float64) string {
	if !math.IsNaN(p) && p < PValueFloor {
		return "< " + Fixed(PValueFloor, 4)
	}
	return Fixed(p, 4)
}

// unsignZero drops the minus from a formatted number that is all zeros.
func unsignZero(s string) string {
	if strings.HasPrefix(s, "-") && isZero(s[1:]) {
		return s[1:]
	}
	return s
}

func isZero(s string) bool { return strings.Trim(s, "0.") == "" }
