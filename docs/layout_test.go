package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
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
	for _, f := range goSources(t, layoutOwner) {
		for _, lit := range layoutLiterals(f) {
			t.Errorf("%s: %s: a store key or bundle file name outside %s (build it with its functions)", f.rel, lit, layoutOwner)
		}
	}
}

// goSource is one non-test Go file of the repository, parsed.
type goSource struct {
	rel  string // slash-separated, from the repository root
	fset *token.FileSet
	file *ast.File
}

// goSources parses the repository's non-test Go files outside testdata,
// hidden folders and the folders skip names (slash paths from the root):
// the one walk the layout tests share.
func goSources(t *testing.T, skip ...string) []goSource {
	t.Helper()
	var out []goSource
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if slices.Contains(skip, rel) || d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && rel != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, goSource{rel, fset, f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// layoutLiterals are the string literals of a Go file that spell the
// store layout.
func layoutLiterals(src goSource) []string {
	var out []string
	ast.Inspect(src.file, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		if spellsLayout(s) {
			out = append(out, strconv.Itoa(src.fset.Position(lit.Pos()).Line)+": "+lit.Value)
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

// TestKeysAreBuiltByKeys fails on a string concatenated with a "/" (a
// literal that holds one) in a file outside internal/keys that reads or
// writes the store (imports internal/store or internal/keys): below a
// prefix, keys are built with keys.File, keys.MemberFile and the like, so
// the layout has one owner. Files that do not touch the store join other
// things with "/" (workflow ids, URLs, labels); internal/store's own
// configured root is not a key of the layout.
func TestKeysAreBuiltByKeys(t *testing.T) {
	for _, f := range goSources(t, layoutOwner, "internal/store") {
		for _, c := range slashConcatenations(f) {
			t.Errorf("%s:%s: a key built outside %s (use keys.File, keys.MemberFile or a function of its own there)", f.rel, c, layoutOwner)
		}
	}
}

// slashConcatenations are the "+" expressions of a Go file that touches
// the store with an operand that is a string literal holding "/"; none
// when the file imports neither internal/store nor internal/keys.
func slashConcatenations(src goSource) []string {
	touches := false
	for _, imp := range src.file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		touches = touches || p == module+"/internal/store" || p == module+"/"+layoutOwner
	}
	if !touches {
		return nil
	}
	var out []string
	inner := map[ast.Expr]bool{} // the "+" inside a chain already looked at
	ast.Inspect(src.file, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || b.Op != token.ADD || inner[b] {
			return true
		}
		operands := concatenated(b, inner)
		if lit, ok := operands[0].(*ast.BasicLit); ok && strings.HasPrefix(lit.Value, `"/`) {
			return true // a URL path: no key begins with "/"
		}
		for _, o := range operands {
			if lit, ok := o.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(lit.Value, "/") {
				out = append(out, strconv.Itoa(src.fset.Position(b.Pos()).Line)+": "+lit.Value)
				break
			}
		}
		return true
	})
	return out
}

// concatenated is the operands of a chain of "+", left to right; it marks
// the chain's inner "+" in inner.
func concatenated(e ast.Expr, inner map[ast.Expr]bool) []ast.Expr {
	b, ok := e.(*ast.BinaryExpr)
	if !ok || b.Op != token.ADD {
		return []ast.Expr{e}
	}
	inner[b.X], inner[b.Y] = true, true
	return append(concatenated(b.X, inner), concatenated(b.Y, inner)...)
}
