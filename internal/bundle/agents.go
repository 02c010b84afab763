package bundle

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/report"
)

// AgentTables are the agents' tables of report.md: MPTB's Table 4 (START
// and STOP balanced accuracy with 95% intervals over scenarios, action
// bias, latencies), the per-family counts of §G.1 (MPTB's conditions and
// the scenes, each rate with its interval) and the measures beyond BA
// (dead air, missed responses, recovery, stop target). None without agents.
func AgentTables(r *Agents) []*report.Table {
	if r == nil || len(r.Agents) == 0 {
		return nil
	}
	return []*report.Table{agent.AgentTable(*r), agent.FamilyTable(*r), agent.MeasuresTable(*r)}
}

// Agents are a bundle's agent results.
type Agents = agent.Results

// agentSection writes report.md's agents section: the tables and every
// trial that failed, with its error.
func agentSection(b *bytes.Buffer, r *Agents) {
	tables := AgentTables(r)
	if len(tables) == 0 {
		return
	}
	b.WriteString("## Agents\n\n")
	b.WriteString("Each agent played its scenario set over its protocol; its decisions are read from its output audio ")
	b.WriteString("(floorbench docs/agents.md#scoring).\n\n")
	for _, t := range tables {
		_ = t.Markdown(b)
		b.WriteString("\n")
	}
	failed := 0
	for _, t := range r.Trials {
		if t.Error != "" {
			if failed == 0 {
				b.WriteString("Failed trials:\n\n")
			}
			failed++
			fmt.Fprintf(b, "- %s, %s repeat %d: %s\n", t.Agent, t.ScenarioID, t.Repeat, oneLine(t.Error))
		}
	}
	if failed > 0 {
		b.WriteString("\n")
	}
}

// oneLine is an error as one line of Markdown: control characters become
// spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
