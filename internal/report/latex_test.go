package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// latexTable carries every TeX special, the symbols floorbench's headers
// and captions use, accented and non-Latin names and a p-value.
func latexTable() *Table {
	return &Table{
		Title:  "EOT — θ ≤ 0.5 & 100% ± 1… (A − B), $x_1$ #2 {a} ~ ^ \\ Δ ≥ ●",
		Header: []string{"system", "θ", "Δ recall", "95% CI", "p", "fp_rate ≤ 0.1"},
		Labels: 1,
		Rows: [][]string{
			{"café_crème", "0.5000", "+0.068", "[-0.102, 0.000]", "< 0.0001", "—"},
			{"a|b>c~d^e", "1.0000", "−0.043", "[+0.017, +0.138]", "0.2520", "$5 & #3"},
			{"日本 naïve Ångström", "0.0100", "0.000", "{x}", `C:\path`, "µs × 2 ≈ 3"},
		},
	}
}

func TestLaTeXIsEscapedASCII(t *testing.T) {
	var b bytes.Buffer
	if err := latexTable().LaTeX(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for i := 0; i < len(out); i++ {
		if out[i] >= 0x80 {
			t.Fatalf("byte %d is not ASCII: …%s…", i, out[max(0, i-20):min(len(out), i+20)])
		}
	}
	goldenFile(t, "table.latex", out)
	// Every cell, with the escapes it may contain taken out, holds no TeX
	// special and none of the characters OT1 prints as other glyphs.
	escapes := regexp.MustCompile(`\\(textbackslash|textasciitilde|textasciicircum|dots)\{\}|\\[&%$#_{}]|\$(<|>|\||-|\\[a-zA-Z]+)\$|\\[` + "`" + `'^~"=crv]\{[A-Za-z]\}`)
	t2 := latexTable()
	for _, row := range append(t2.Rows, t2.Header, []string{t2.Title}) {
		for _, cell := range row {
			rest := escapes.ReplaceAllString(LaTeXText(cell), "")
			if i := strings.IndexAny(rest, `\&%$#_{}~^<>|`); i >= 0 {
				t.Errorf("cell %q: unescaped %q in %q", cell, rest[i], LaTeXText(cell))
			}
		}
	}
	for in, want := range map[string]string{"café": `caf\'{e}`, "θ": `$\theta$`, "−0.043": `$-$0.043`, "< 0.0001": `$<$ 0.0001`, "日": "?"} {
		if got := LaTeXText(in); got != want {
			t.Errorf("LaTeXText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLaTeXCompiles runs pdflatex on the table (setup component latex).
func TestLaTeXCompiles(t *testing.T) {
	var b bytes.Buffer
	if err := latexTable().LaTeX(&b); err != nil {
		t.Fatal(err)
	}
	testenv.CompileLaTeX(t, b.String())
}

func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/report -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n%s", name, got)
	}
}
