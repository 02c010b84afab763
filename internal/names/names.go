// Package names holds the forms plain names must take: ids, agent and
// system names, queue, voice and model names, environment variables. A
// form is a regular expression without a length bound plus a bound on
// the length, because a bounded repetition (x{0,160}) compiles into as
// many copies of x as its bound: sixteen such expressions compiled at
// start-up cost every floorbench process tens of milliseconds
// (docs/performance.md#process-start).
package names

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sync"
)

// Form is what a name may look like: it matches Pattern and has at most
// Max bytes.
type Form struct {
	re  func() *regexp.Regexp // compiled at its first match, not at start-up
	max int
}

// MustForm makes a form: it parses the pattern now and compiles it at
// the form's first match; it panics on a pattern with a bounded
// repetition, which would cost what Form exists to avoid, or on one that
// does not parse (package-level variables only).
func MustForm(pattern string, max int) Form {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		panic(fmt.Sprintf("names: pattern %q: %v", pattern, err))
	}
	if hasBound(re) {
		panic(fmt.Sprintf("names: pattern %q has a bounded repetition: give its bound as max", pattern))
	}
	return Form{re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) }), max: max}
}

// hasBound reports whether a parsed pattern has a repetition with an
// upper bound ({n,m} or {n}). Every process makes the forms at start-up,
// so MustForm parses a pattern and compiles it only at its first match.
func hasBound(r *syntax.Regexp) bool {
	if r.Op == syntax.OpRepeat && r.Max >= 0 {
		return true
	}
	for _, sub := range r.Sub {
		if hasBound(sub) {
			return true
		}
	}
	return false
}

// Match reports whether s has the form.
func (f Form) Match(s string) bool { return len(s) <= f.max && f.re().MatchString(s) }

// Plain is the common form of a name that becomes part of a file or key:
// a letter or digit, then letters, digits, '_', '.' and '-', at most max
// bytes.
func Plain(max int) Form { return MustForm(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`, max) }
