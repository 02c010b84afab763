package main

import (
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/floorbench/floorbench/internal/orchestrate"
)

// sweepProgress shows a sweep's progress on w: one bar over all its work
// (conversations generated, tracks inferred, systems scored) on a
// terminal; elsewhere (logs, CI) one line per phase. The returned function
// ends the display.
func sweepProgress(w io.Writer) (show func(orchestrate.Status), done func()) {
	if f, ok := w.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		phase := ""
		return func(st orchestrate.Status) {
			if p := st.Progress; p.Phase != phase {
				phase = p.Phase
				fmt.Fprintf(w, "%s: conversations %d/%d, tracks %d/%d, systems %d/%d\n", p.Phase,
					p.ConversationsGenerated, p.ConversationsTotal, p.TracksInferred, p.TracksTotal, p.SystemsScored, p.SystemsTotal)
			}
		}, func() {}
	}
	bar := progressbar.NewOptions(1, progressbar.OptionSetWriter(w), progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(false), progressbar.OptionClearOnFinish())
	return func(st orchestrate.Status) {
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
