package main

import (
	"bytes"
	"testing"
	"time"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// Off a terminal a local job's count is a line at most every
// progressEvery and one at the end, never a bar's redraws.
func TestPlainCountProgressLines(t *testing.T) {
	var buf bytes.Buffer
	c := newCountProgress(&buf, "generating")
	clock := &fakeClock{t: time.Unix(0, 0)}
	c.lines.now = clock.now
	for i := 1; i <= 12; i++ {
		clock.t = clock.t.Add(time.Second)
		c.Add(12)
	}
	if want := "generating: 1/12\ngenerating: 6/12\ngenerating: 11/12\ngenerating: 12/12\n"; buf.String() != want {
		t.Errorf("progress lines %q, want %q", buf.String(), want)
	}
}
