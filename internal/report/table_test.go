package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
)

// table is a small table with a cell to escape in every format, and a
// cell of multi-byte runes that counts as one column.
func table() *Table {
	return &Table{Title: "T", Header: []string{"name", "n"}, Labels: 1, Caption: "cap",
		Rows: [][]string{{"a|b", "10"}, {"é", "—"}}}
}

// Every format lays the same table out by its own rules; the expected
// bytes are written out by hand.
func TestTableFormats(t *testing.T) {
	for _, c := range []struct {
		format, want string
	}{
		// Widths 4 and 2 (runes, not bytes), two spaces between columns,
		// names left and numbers right, a rule as wide as the table.
		{"text", "T\n" +
			"name   n\n" +
			"────────\n" +
			"a|b   10\n" +
			"é      —\n" +
			"cap\n"},
		{"", "T\nname   n\n────────\na|b   10\né      —\ncap\n"},
		{"md", "**T**\n\n" +
			"| name | n |\n" +
			"|---|---:|\n" +
			"| a\\|b | 10 |\n" +
			"| é | — |\n" +
			"\ncap\n"},
		{"csv", "name,n\na|b,10\né,—\n"},
		{"latex", "\\begin{table}[t]\n\\centering\n" +
			"\\begin{tabular}{lr}\n\\toprule\n" +
			"name & n \\\\\n" +
			"\\midrule\n" +
			"a$|$b & 10 \\\\\n" + // pdflatex's default font has no |: math
			"\\'{e} & --- \\\\\n" + // accented letters as accent commands
			"\\bottomrule\n\\end{tabular}\n" +
			"\\par\\smallskip{\\footnotesize cap\\par}\n" +
			"\\caption{T}\n" +
			"\\end{table}\n"},
	} {
		var b bytes.Buffer
		if err := table().Write(&b, c.format); err != nil {
			t.Fatalf("%q: %v", c.format, err)
		}
		if b.String() != c.want {
			t.Errorf("format %q:\n%s\nwant\n%s", c.format, b.String(), c.want)
		}
	}
	var b bytes.Buffer
	if err := table().Write(&b, "html"); err == nil || err.Error() != `unknown table format "html" (want text, md, csv or latex)` || b.Len() != 0 {
		t.Errorf("unknown format: %v, wrote %q", err, b.String())
	}
}

// The aliases name the same formats.
func TestTableFormatAliases(t *testing.T) {
	for alias, format := range map[string]string{"markdown": "md", "tex": "latex"} {
		var a, b bytes.Buffer
		if err := table().Write(&a, alias); err != nil {
			t.Fatal(err)
		}
		if err := table().Write(&b, format); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("%s differs from %s", alias, format)
		}
	}
}

// LaTeX's special characters are escaped in cells and the caption; a
// table without a title has no caption, and Labels 0 still keeps the
// first column for names.
func TestLaTeXEscapes(t *testing.T) {
	tb := &Table{Header: []string{"sys_1", "50%"}, Rows: [][]string{{`a&b {c} #d $e ~f ^g \h`, "—"}}}
	var b bytes.Buffer
	if err := tb.LaTeX(&b); err != nil {
		t.Fatal(err)
	}
	want := "\\begin{table}[t]\n\\centering\n\\begin{tabular}{lr}\n\\toprule\n" +
		"sys\\_1 & 50\\% \\\\\n\\midrule\n" +
		"a\\&b \\{c\\} \\#d \\$e \\textasciitilde{}f \\textasciicircum{}g \\textbackslash{}h & --- \\\\\n" +
		"\\bottomrule\n\\end{tabular}\n\\end{table}\n"
	if b.String() != want {
		t.Errorf("LaTeX:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := tb.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	if want := "| sys_1 | 50% |\n|---|---:|\n| a&b {c} #d $e ~f ^g \\h | — |\n"; b.String() != want {
		t.Errorf("Markdown without title or caption:\n%s\nwant\n%s", b.String(), want)
	}
}

// The timing table gives offsets in signed whole milliseconds, the
// overlap share as a rate, and dashes for a set without transfers.
func TestTimingTable(t *testing.T) {
	tb := TimingTable(floor.Timing{Smooth: floor.OffsetStats{N: 4, Median: 0.2, P25: -0.05, P75: 0.45, Overlap: 0.25}})
	want := [][]string{
		{"smooth", "4", "+200", "-50", "+450", "0.250"},
		{"with interruptions", "0", "—", "—", "—", "—"},
	}
	if len(tb.Rows) != len(want) {
		t.Fatalf("rows %q", tb.Rows)
	}
	for i := range want {
		if strings.Join(tb.Rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d: %q, want %q", i, tb.Rows[i], want[i])
		}
	}
	if len(tb.Header) != 6 || tb.Header[2] != "median ms" {
		t.Errorf("header %q", tb.Header)
	}
}
