package agent

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/floorbench/floorbench/internal/report"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := testdata(name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/agent -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s", name, got)
	}
}

// The agent tables and the results' JSON shape for four simulated agents
// (never-yield, always-yield, selective, flaky), three repeats each,
// with a small bootstrap.
func TestAgentTablesGolden(t *testing.T) {
	p := DefaultScoreParams()
	p.Bootstrap, p.Seed = 500, 1
	r := scoreRun(t, recordRun(t, 3, neverYield, alwaysYield, selective, flaky), p)
	tables := map[string]func(Results) *report.Table{"agents": AgentTable, "families": FamilyTable, "speakers": SpeakersTable,
		"measures": MeasuresTable}
	for _, c := range []struct{ table, format string }{
		{"agents", "text"}, {"agents", "md"}, {"families", "text"}, {"families", "md"}, {"speakers", "text"}, {"speakers", "md"},
		{"measures", "text"}, {"measures", "md"}, {"measures", "csv"}, {"measures", "latex"}, {"families", "csv"}, {"families", "latex"},
	} {
		t.Run(c.table+"-"+c.format, func(t *testing.T) {
			var b bytes.Buffer
			if err := tables[c.table](r).Write(&b, c.format); err != nil {
				t.Fatal(err)
			}
			golden(t, c.table+"."+c.format+".golden", b.Bytes())
		})
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "results.json.golden", append(data, '\n'))
}
