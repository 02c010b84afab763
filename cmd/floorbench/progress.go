package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressEvery is the least time between two plain progress lines: a log
// gets a line every few seconds, not one per conversation.
const progressEvery = 5 * time.Second

// isTerminal reports whether w is a terminal; progress bars are drawn only
// there (in a log or a pipe their redraws are noise).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// plainLines writes progress lines to a log: a line that repeats the last
// one is dropped, and so is one sooner than every after the last, unless
// it is forced (a new phase, the end).
type plainLines struct {
	w        io.Writer
	every    time.Duration
	now      func() time.Time
	last     time.Time
	lastLine string
}

func newPlainLines(w io.Writer) *plainLines {
	return &plainLines{w: w, every: progressEvery, now: time.Now}
}

func (p *plainLines) line(s string, force bool) {
	if s == p.lastLine {
		return
	}
	t := p.now()
	if !force && p.lastLine != "" && t.Sub(p.last) < p.every {
		return
	}
	fmt.Fprintln(p.w, s)
	p.last, p.lastLine = t, s
}

// countProgress shows done of total items of a local job (corpus
// generate, detect) on w: a bar on a terminal, elsewhere a line
// "label: done/total" at most every progressEvery and at the end. Jobs
// report from several goroutines.
type countProgress struct {
	mu    sync.Mutex
	label string
	bar   *progressbar.ProgressBar
	lines *plainLines
	done  int
}

func newCountProgress(w io.Writer, label string) *countProgress {
	c := &countProgress{label: label}
	if isTerminal(w) {
		c.bar = progressbar.NewOptions(-1, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(), progressbar.OptionSetElapsedTime(true), progressbar.OptionClearOnFinish())
	} else {
		c.lines = newPlainLines(w)
	}
	return c
}

// Set reports that done of total items are finished.
func (c *countProgress) Set(done, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set(done, total)
}

// Add reports one more of total items finished.
func (c *countProgress) Add(total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done++
	c.set(c.done, total)
}

func (c *countProgress) set(done, total int) {
	if c.lines != nil {
		c.lines.line(fmt.Sprintf("%s: %d/%d", c.label, done, total), done == total)
		return
	}
	c.bar.ChangeMax(total)
	_ = c.bar.Set(done)
}

// Clear removes an unfinished bar, so that an error line replaces it.
func (c *countProgress) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bar != nil {
		_ = c.bar.Clear()
	}
}
