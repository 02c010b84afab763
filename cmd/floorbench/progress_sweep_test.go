//go:build !floorbench_light

package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/temporalclient"
	"github.com/floorbench/floorbench/workflows"
)

// Off a terminal a sweep's progress is plain lines: one per phase, one at
// the end, and between them at most one per progressEvery; repeats are
// dropped.
func TestPlainSweepProgressLines(t *testing.T) {
	var buf bytes.Buffer
	clock := &fakeClock{t: time.Unix(0, 0)}
	show := plainSweepProgress(&plainLines{w: &buf, every: progressEvery, now: clock.now})
	step := func(after time.Duration, state, phase string, conv, tracks, systems int) {
		clock.t = clock.t.Add(after)
		show(temporalclient.Status{State: state, Progress: workflows.Progress{Phase: phase,
			ConversationsGenerated: conv, ConversationsTotal: 12, TracksInferred: tracks, TracksTotal: 24, SystemsScored: systems, SystemsTotal: 2}})
	}
	step(0, "running", "corpora", 0, 0, 0)
	step(time.Second, "running", "corpora", 3, 0, 0) // too soon
	step(time.Second, "running", "corpora", 5, 0, 0) // too soon
	step(4*time.Second, "running", "corpora", 8, 0, 0)
	step(10*time.Second, "running", "corpora", 8, 0, 0) // a repeat
	step(time.Second, "running", "evaluation", 12, 0, 0)
	step(time.Second, "running", "evaluation", 12, 6, 0) // too soon
	step(time.Second, "completed", "done", 12, 24, 2)
	want := `corpora: conversations 0/12, tracks 0/24, systems 0/2
corpora: conversations 8/12, tracks 0/24, systems 0/2
evaluation: conversations 12/12, tracks 0/24, systems 0/2
done: conversations 12/12, tracks 24/24, systems 2/2
`
	if buf.String() != want {
		t.Errorf("progress lines:\n%s\nwant:\n%s", buf.String(), want)
	}
}
