package bundle_test

import (
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audit"
	"github.com/floorbench/floorbench/internal/bundle"
)

// ReportTables (bundle show -o csv|latex) are the tables of report.md, in
// its order: each one's Markdown, less the title that only the tables
// without a heading of their own gain, is in report.md after the one
// before it, and report.md has no other table.
func TestReportTablesAreTheReportsTables(t *testing.T) {
	files, res := buildBundle(t, false, map[string]*audit.Report{"mptb-mini": shortcutAudit(t)})
	var md string
	for _, f := range files {
		if f.Name == "report.md" {
			md = string(f.Data)
		}
	}
	tables := bundle.ReportTables(res)
	rest := md
	for i, tb := range tables {
		if tb.Title == "" {
			t.Errorf("table %d (%s) has no title", i, tb.Header)
		}
		if tb.Title == "Sim-to-real" || tb.Title == "Operating points" {
			tb.Title = ""
		}
		var b strings.Builder
		if err := tb.Markdown(&b); err != nil {
			t.Fatal(err)
		}
		at := strings.Index(rest, b.String())
		if at < 0 {
			t.Fatalf("table %d is not in report.md after table %d:\n%s", i, i-1, b.String())
		}
		rest = rest[at+b.Len():]
	}
	if n := strings.Count(md, "\n|---"); n != len(tables) {
		t.Errorf("report.md has %d tables, ReportTables %d", n, len(tables))
	}
}
