package names

import (
	"strings"
	"testing"
)

// A form holds its pattern and its length bound: the longest name that
// matches is accepted, one byte more is not, and other characters are
// refused at any length.
func TestFormsBoundTheLengthAndTheCharacters(t *testing.T) {
	t.Parallel()
	f := Plain(64)
	cases := map[string]bool{
		"a": true, "tiny-agent.v2_1": true, strings.Repeat("a", 64): true,
		strings.Repeat("a", 65): false, "": false, "-a": false, "a/b": false, "a b": false, "..": false, "é": false,
	}
	for s, want := range cases {
		if got := f.Match(s); got != want {
			t.Errorf("Plain(64).Match(%q) = %v, want %v", s, got, want)
		}
	}
	env := MustForm(`^[A-Za-z_][A-Za-z0-9_]*$`, 128)
	if !env.Match("FLOORBENCH_KEY") || env.Match("1KEY") || env.Match(strings.Repeat("K", 129)) {
		t.Error("the environment-variable form")
	}
}

// A pattern with a bounded repetition is refused when the form is made.
func TestBoundedPatternsAreRefused(t *testing.T) {
	t.Parallel()
	for _, p := range []string{`^[a-z]{0,63}$`, `^[a-z]{1,64}$`, `^a{3}$`} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("MustForm(%q) did not panic", p)
				}
			}()
			MustForm(p, 64)
		}()
	}
}

func BenchmarkPlainForm(b *testing.B) {
	for b.Loop() {
		Plain(161)
	}
}
