package bundle_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/score"
)

// storedAgents are agent results as a sweep stores them: those of the
// agent package's golden run, one trial failed.
func storedAgents(t *testing.T) *agent.Results {
	t.Helper()
	data, err := os.ReadFile("../agent/testdata/results.json.golden")
	if err != nil {
		t.Fatal(err)
	}
	var r agent.Results
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	r.Trials[0].Error = "receive: the duplex agent at ws://127.0.0.1:9/ sent nothing\nfor 5s of session time"
	return &r
}

// A bundle of agents alone holds their results in results.json and the
// agent table (MPTB's Table 4 layout), the family table and every failed
// trial's error in report.md, byte for byte the same on every build; a
// bundle without agents has no agents key at all.
func TestBundleWithAgents(t *testing.T) {
	meta := bundle.Meta{Name: "agents", SpecHash: "abc", Spec: json.RawMessage(`{"name":"agents"}`), CodeVersion: "test",
		Protocol: score.DefaultParams(), Resamples: 100, Seed: 1}
	build := func() []bundle.File {
		files, _, err := bundle.Build(meta, bundle.Parts{Agents: storedAgents(t)}, "2026-12-03T00:00:00Z")
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	first, again := build(), build()
	byName := map[string][]byte{}
	for i, f := range first {
		if !bytes.Equal(f.Data, again[i].Data) {
			t.Errorf("%s differs between two builds", f.Name)
		}
		byName[f.Name] = f.Data
	}
	var res bundle.Results
	if err := json.Unmarshal(byName["results.json"], &res); err != nil {
		t.Fatal(err)
	}
	if res.Agents == nil || len(res.Agents.Agents) != len(storedAgents(t).Agents) {
		t.Fatalf("results.json agents: %+v", res.Agents)
	}
	var table bytes.Buffer
	if err := agent.AgentTable(*storedAgents(t)).Markdown(&table); err != nil {
		t.Fatal(err)
	}
	report := string(byName["report.md"])
	for _, want := range []string{"## Agents", table.String(), "Full-duplex agents by family",
		"sent nothing for 5s of session time"} {
		if !strings.Contains(report, want) {
			t.Errorf("report.md lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "Operating points") {
		t.Error("a bundle without evaluations has an operating points table")
	}
	_, plain := buildBundle(t, false, nil)
	if data, _ := json.Marshal(plain); strings.Contains(string(data), `"agents"`) {
		t.Error("results.json of a sweep without agents has an agents key")
	}
}
