package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Table is a titled grid of cells with a header row. The first Labels
// columns hold names and are left-aligned (at least one); the rest hold
// numbers and are right-aligned.
type Table struct {
	Title   string
	Header  []string
	Rows    [][]string
	Caption string
	Labels  int
}

func (t *Table) leftAligned(col int) bool { return col < max(1, t.Labels) }

// Text writes t as aligned plain text, numbers right-aligned.
func (t *Table) Text(w io.Writer) error {
	widths := make([]int, len(t.Header))
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	if t.Title != "" {
		b.WriteString(t.Title + "\n")
	}
	line := func(row []string) {
		for i, cell := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if t.leftAligned(i) {
				b.WriteString(cell + pad)
			} else {
				b.WriteString(pad + cell)
			}
		}
		b.WriteString("\n")
	}
	line(t.Header)
	total := len(widths)*2 - 2
	for _, w := range widths {
		total += w
	}
	b.WriteString(strings.Repeat("─", total) + "\n")
	for _, row := range t.Rows {
		line(row)
	}
	if t.Caption != "" {
		b.WriteString(t.Caption + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Markdown writes t as a GitHub-flavoured Markdown table.
func (t *Table) Markdown(w io.Writer) error {
	var b strings.Builder
	if t.Title != "" {
		fmt.Fprintf(&b, "**%s**\n\n", t.Title)
	}
	esc := func(row []string) string {
		out := make([]string, len(row))
		for i, c := range row {
			out[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		return "| " + strings.Join(out, " | ") + " |\n"
	}
	b.WriteString(esc(t.Header))
	sep := make([]string, len(t.Header))
	for i := range sep {
		sep[i] = "---"
		if !t.leftAligned(i) {
			sep[i] = "---:"
		}
	}
	b.WriteString("|" + strings.Join(sep, "|") + "|\n")
	for _, row := range t.Rows {
		b.WriteString(esc(row))
	}
	if t.Caption != "" {
		fmt.Fprintf(&b, "\n%s\n", t.Caption)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CSV writes the header and rows as CSV (no title or caption).
func (t *Table) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// LaTeX writes t as a booktabs tabular inside a table environment, in
// ASCII that plain pdflatex compiles (see LaTeXText): the caption in small
// type under the tabular, the title as the table's \caption.
func (t *Table) LaTeX(w io.Writer) error {
	var b strings.Builder
	b.WriteString("\\begin{table}[t]\n\\centering\n")
	labels := max(1, t.Labels)
	fmt.Fprintf(&b, "\\begin{tabular}{%s%s}\n\\toprule\n", strings.Repeat("l", labels), strings.Repeat("r", len(t.Header)-labels))
	row := func(cells []string) {
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = LaTeXText(c)
		}
		b.WriteString(strings.Join(out, " & ") + " \\\\\n")
	}
	row(t.Header)
	b.WriteString("\\midrule\n")
	for _, r := range t.Rows {
		row(r)
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	if t.Caption != "" {
		fmt.Fprintf(&b, "\\par\\smallskip{\\footnotesize %s\\par}\n", LaTeXText(t.Caption))
	}
	if t.Title != "" {
		fmt.Fprintf(&b, "\\caption{%s}\n", LaTeXText(t.Title))
	}
	b.WriteString("\\end{table}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Write renders t in format: text, md, csv or latex.
func (t *Table) Write(w io.Writer, format string) error {
	switch format {
	case "text", "":
		return t.Text(w)
	case "md", "markdown":
		return t.Markdown(w)
	case "csv":
		return t.CSV(w)
	case "latex", "tex":
		return t.LaTeX(w)
	}
	return fmt.Errorf("unknown table format %q (want text, md, csv or latex)", format)
}
