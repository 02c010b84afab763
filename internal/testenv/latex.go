package testenv

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// latexLogErrors are what pdflatex's log says about input plain pdflatex
// cannot typeset: a command it does not know, math outside math mode, a
// character outside the input encoding or without a glyph in the font.
var latexLogErrors = []string{"Undefined control sequence", "Missing $", "not set up for use with LaTeX", "Missing character"}

// CompileLaTeX typesets body, LaTeX source of floorbench's tables, in a
// minimal article that loads booktabs (the one package the tables use)
// with pdflatex from setup component latex, and fails t if pdflatex fails
// or its log reports input it could not typeset.
func CompileLaTeX(t testing.TB, body string) {
	t.Helper()
	pdflatex := Program(t, "pdflatex", "latex")
	dir := t.TempDir()
	doc := "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n" + body + "\\end{document}\n"
	if err := os.WriteFile(filepath.Join(dir, "tables.tex"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "tables.tex")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pdflatex: %v\n%s\ndocument:\n%s", err, out, doc)
	}
	log, err := os.ReadFile(filepath.Join(dir, "tables.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range latexLogErrors {
		if i := strings.Index(string(log), e); i >= 0 {
			t.Errorf("pdflatex log: %s\n%s", e, log[i:min(len(log), i+300)])
		}
	}
}
