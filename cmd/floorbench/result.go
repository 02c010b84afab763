package main

import (
	"bytes"
	"io"
	"strings"

	"github.com/floorbench/floorbench/internal/report"
)

// resultPart is one part of a command's result: a table, or lines of
// prose (a summary, the operating point, a verdict).
type resultPart struct {
	table *report.Table
	lines []string
	// joined puts the lines right under the previous part in text output,
	// without the blank line that separates parts.
	joined bool
}

func tablePart(t *report.Table) resultPart { return resultPart{table: t} }

func linesPart(lines ...string) resultPart { return resultPart{lines: lines} }

// writeResult renders a result's parts in format (text, md, csv or latex)
// with a blank line between parts: tables through report.Table.Write
// (titled: a bold line in md, a caption in latex), prose as lines in text,
// one paragraph per line in md and latex. csv holds the tables only. It
// renders everything before writing, so an error leaves w untouched.
func writeResult(w io.Writer, format string, parts ...resultPart) error {
	var b bytes.Buffer
	for i, p := range parts {
		if p.table == nil && format == "csv" {
			continue
		}
		if b.Len() > 0 && !(p.joined && format == "text" && i > 0) {
			b.WriteString("\n")
		}
		if p.table != nil {
			if err := p.table.Write(&b, format); err != nil {
				return err
			}
			continue
		}
		sep := "\n\n"
		if format == "text" {
			sep = "\n"
		}
		lines := p.lines
		if format == "latex" {
			lines = make([]string, len(p.lines))
			for j, l := range p.lines {
				lines[j] = report.LaTeXText(l)
			}
		}
		b.WriteString(strings.Join(lines, sep) + "\n")
	}
	_, err := b.WriteTo(w)
	return err
}
