package corpus_test

import (
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/limits"
)

// A corpus past the conversation limits is refused where it is opened: at
// submission, and on the worker that ingests or plans it.
func TestCorpusOverTheLimitsIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := auditfixture.Write(dir, auditfixture.Small(), 1); err != nil {
		t.Fatal(err)
	}
	c, err := corpus.Open(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	n := len(c.Manifest.Conversations)
	l := limits.Default()
	l.Conversations = n
	if _, err := corpus.Open(dir, l); err != nil {
		t.Errorf("%d conversations at a limit of %d: %v", n, n, err)
	}
	l.Conversations = n - 1
	if _, err := corpus.Open(dir, l); err == nil || !strings.Contains(err.Error(), "conversations: ") || !strings.Contains(err.Error(), "limits.conversations") {
		t.Errorf("%d conversations over a limit of %d: %v", n, n-1, err)
	}
	l = limits.Default()
	l.DurationS = 1
	if _, err := corpus.Open(dir, l); err == nil || !strings.Contains(err.Error(), "duration_s: ") || !strings.Contains(err.Error(), "is over the limit of 1 ") {
		t.Errorf("durations over 1 s: %v", err)
	}
}
