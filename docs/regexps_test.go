package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// longBound finds a bounded repetition whose bound has two or more
// digits: x{0,63} compiles into 63 copies of x.
var longBound = regexp.MustCompile(`\{\d*,?\d{2,}\}`)

// TestRegexpsHaveNoLongBounds fails on a regular expression compiled by
// the module's code with a long bounded repetition. Package-level
// expressions are compiled when any floorbench process starts, and sixteen
// such names cost each start tens of milliseconds
// (docs/performance.md#process-start): a name's length bound goes to
// names.MustForm instead. Tests are left out.
func TestRegexpsHaveNoLongBounds(t *testing.T) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, lit := range compiledPatterns(t, path) {
			if longBound.MatchString(lit) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s: the pattern %s has a long bounded repetition (use names.MustForm with a length bound)", rel, lit)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// compiledPatterns are the string literals passed to regexp.Compile or
// regexp.MustCompile in the file at path.
func compiledPatterns(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "MustCompile" && sel.Sel.Name != "Compile") {
			return true
		}
		if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "regexp" {
			return true
		}
		if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				out = append(out, s)
			}
		}
		return true
	})
	return out
}
