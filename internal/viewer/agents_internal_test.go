package viewer

import (
	"io"
	"log"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/limits"
)

// A bundle with agents shows their tables on its page: the agent table,
// the family table with the scenes and the measures.
func TestBundlePageShowsTheAgentTables(t *testing.T) {
	s := New(nil, log.New(io.Discard, "", 0), limits.Default())
	p := agent.DefaultScoreParams()
	p.Bootstrap = 20
	trials := []agent.Trial{{Agent: "ref", Protocol: "duplex", ScenarioID: "s1", Condition: agent.StopOnSideTalk, Speakers: 3,
		Decision: agent.Decision{Outcome: agent.Decided, Acted: true, Latency: 0.1}}}
	res := agent.Score(trials, p)
	results := &bundle.Results{Agents: &res}
	var b strings.Builder
	err := s.pages.ExecuteTemplate(&b, "bundle.html", map[string]any{"Title": "x", "B": &bundle.Manifest{BundleID: "b1"}, "Results": results,
		"OperatingPoints": bundle.OperatingPointsTable(nil), "Agents": bundle.AgentTables(results.Agents)})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h2>Agents</h2>", "Full-duplex agents by family", "side talk (STOP−)", "dead air &gt; 2 s"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the bundle page lacks %q", want)
		}
	}
}
