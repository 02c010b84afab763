package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// storeLayout is what only internal/keys may spell
// (docs/architecture.md#store-layout): the top-level prefixes of the store
// and the names of the bundle files readers find by name. Everything else
// builds keys with its functions.
var storeLayout = []string{
	"corpora/", "bundles/", "inputs/", "sums/", "specs/", "schedules/", "tracks/", "model-outputs/",
	"evaluations/", "audits/", "scenarios/", "trials/", "agent-results/",
}

var bundleFiles = []string{"manifest.json", "results.json"}

// layoutOwner is the package that owns the layout.
const layoutOwner = "internal/keys"

// TestStoreLayoutHasOneOwner fails on a string literal outside
// internal/keys that begins with a store prefix or names a bundle file a
// reader looks up. Tests are left out: they spell the layout as a user
// reading the store sees it, to check it from outside.
func TestStoreLayoutHasOneOwner(t *testing.T) {
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == layoutOwner || d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && rel != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		for _, lit := range layoutLiterals(t, path) {
			found = append(found, rel+": "+lit)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: a store key or bundle file name outside %s (build it with its functions)", f, layoutOwner)
	}
}

// layoutLiterals are the string literals of a Go file that spell the
// store layout.
func layoutLiterals(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		if spellsLayout(s) {
			out = append(out, strconv.Itoa(fset.Position(lit.Pos()).Line)+": "+lit.Value)
		}
		return true
	})
	return out
}

func spellsLayout(s string) bool {
	for _, p := range storeLayout {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	for _, name := range bundleFiles {
		if s == name || strings.HasSuffix(s, "/"+name) {
			return true
		}
	}
	return false
}
