//go:build !floorbench_light

package main

import (
	"fmt"
	"io"

	"github.com/schollz/progressbar/v3"

	"github.com/floorbench/floorbench/internal/temporalclient"
)

// sweepProgress shows a sweep's progress on w: one bar over all its work
// (conversations generated, tracks inferred, systems scored) on a
// terminal; elsewhere (logs, CI) a line at each phase, at the end and at
// most every progressEvery between. The returned function ends the
// display.
func sweepProgress(w io.Writer) (show func(temporalclient.Status), done func()) {
	if !isTerminal(w) {
		return plainSweepProgress(newPlainLines(w)), func() {}
	}
	bar := progressbar.NewOptions(1, progressbar.OptionSetWriter(w), progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(false), progressbar.OptionClearOnFinish())
	return func(st temporalclient.Status) {
			p := st.Progress
			if total := p.ConversationsTotal + p.TracksTotal + p.SystemsTotal; total > 0 {
				bar.ChangeMax(total)
				_ = bar.Set(p.ConversationsGenerated + p.TracksInferred + p.SystemsScored)
			}
			bar.Describe(fmt.Sprintf("%-11s", p.Phase))
		}, func() {
			_ = bar.Finish()
		}
}

func plainSweepProgress(lines *plainLines) func(temporalclient.Status) {
	phase := ""
	return func(st temporalclient.Status) {
		p := st.Progress
		lines.line(fmt.Sprintf("%s: conversations %d/%d, tracks %d/%d, systems %d/%d", p.Phase,
			p.ConversationsGenerated, p.ConversationsTotal, p.TracksInferred, p.TracksTotal, p.SystemsScored, p.SystemsTotal),
			p.Phase != phase || st.State != "running")
		phase = p.Phase
	}
}
