package bundle

import (
	"bytes"
	"fmt"

	"github.com/floorbench/floorbench/internal/report"
)

// SeatedRun is what a bundle says of a seated agent on one corpus: its
// sessions, and each seat whose session failed for good. An agent with a
// failed seat has no evaluation on that corpus: its predictions would
// miss that seat's.
type SeatedRun struct {
	Agent          string        `json:"agent"`
	Protocol       string        `json:"protocol"`
	Corpus         string        `json:"corpus"`
	OperatingPoint string        `json:"operating_point"`
	Seats          int           `json:"seats"`
	Failed         []SeatFailure `json:"failed"`
}

// SeatFailure is a seat whose session failed after every attempt.
type SeatFailure struct {
	Conversation string `json:"conversation_id"`
	Seat         int    `json:"seat"`
	Error        string `json:"error"`
}

// seatedSection writes report.md's seated agents section: every seated
// run and every seat that failed, with its error.
func seatedSection(b *bytes.Buffer, runs []SeatedRun) {
	if len(runs) == 0 {
		return
	}
	b.WriteString("## Seated agents\n\n")
	b.WriteString("Each agent was seated in the corpus's conversations as a system; its onsets, read from its output audio, ")
	b.WriteString("are its predictions, ranked on the leaderboards above with no threshold (floorbench docs/agents.md#seated-agents).\n\n")
	t := &report.Table{Header: []string{"agent", "protocol", "corpus", "seats", "failed", "operating point"}, Labels: 3}
	for _, r := range runs {
		op := r.OperatingPoint
		if len(r.Failed) > 0 {
			op = "not ranked: a seat failed"
		}
		t.Rows = append(t.Rows, []string{r.Agent, r.Protocol, r.Corpus, fmt.Sprint(r.Seats), fmt.Sprint(len(r.Failed)), op})
	}
	_ = t.Markdown(b)
	b.WriteString("\n")
	failed := 0
	for _, r := range runs {
		for _, f := range r.Failed {
			if failed == 0 {
				b.WriteString("Failed seats:\n\n")
			}
			failed++
			fmt.Fprintf(b, "- %s on %s, %s seat %d: %s\n", r.Agent, r.Corpus, f.Conversation, f.Seat, oneLine(f.Error))
		}
	}
	if failed > 0 {
		b.WriteString("\n")
	}
}
