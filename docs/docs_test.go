package docs

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// root is the repository root, seen from this package's folder.
const root = ".."

// maxScanned bounds the files scanned for citations: large files are data
// (fixtures, rendered outputs), not prose.
const maxScanned = 1 << 20

// outsideDesign matches a citation of the design document that is not in
// the repository. The pattern is built from parts so that this file does
// not match it.
var outsideDesign = regexp.MustCompile("DESIGN" + `(\.md| ?§)`)

// unnamedSection matches a numbered section (the section sign, a digit) without the name of the
// work it belongs to: a citation of the outside design document with its
// name dropped. Sections of the papers name the paper on the same line
// (MPTB §F.8, MPTB §3.2).
var unnamedSection = regexp.MustCompile(`§[0-9]`)

var namedWork = regexp.MustCompile(`\b(MPTB|TurnBench)\b`)

// docLink matches a citation of a document under docs/, with an optional
// anchor: docs/protocol.md#matching.
var docLink = regexp.MustCompile(`docs/([A-Za-z0-9_-]+\.md)(#[A-Za-z0-9_-]+)?`)

// relativeLink matches a Markdown link inside docs/ to a sibling document
// or to an anchor of the same one: (formats.md#submission), (#matching).
var relativeLink = regexp.MustCompile(`\]\(([A-Za-z0-9_-]+\.md)?(#[A-Za-z0-9_-]+)?\)`)

// scanned reports whether a file is prose or code that may cite documents.
func scanned(path string) bool {
	base := filepath.Base(path)
	if strings.HasPrefix(base, "Dockerfile") {
		return true
	}
	switch filepath.Ext(base) {
	case ".go", ".md", ".yaml", ".yml", ".tpl", ".txt", ".sh", ".json":
		return true
	}
	return false
}

// repositoryFiles lists the scanned files of the repository, skipping
// hidden folders (.git) and files too large to be prose.
func repositoryFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !scanned(path) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > maxScanned {
			return err
		}
		out = append(out, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("found only %d files under %s: not the repository root?", len(out), root)
	}
	return out
}

// Slug returns the anchor GitHub gives a heading: lower case, every
// character that is not a letter, digit, mark, '_', '-' or space dropped,
// spaces turned into '-'. Link syntax is reduced to its text first.
func Slug(heading string) string {
	heading = markdownLink.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var markdownLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

var heading = regexp.MustCompile(`^#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$`)

// Anchors returns the anchors of a Markdown document's headings, outside
// fenced code blocks; a repeated slug gets -1, -2, ... as on GitHub.
func Anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), maxScanned)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := Slug(m[1])
		if n := seen[slug]; n > 0 {
			seen[slug] = n + 1
			slug = fmt.Sprintf("%s-%d", slug, n)
		} else {
			seen[slug] = 1
		}
		out[slug] = true
	}
	return out
}

func TestSlugMatchesGitHub(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Sweep and operating point", "sweep-and-operating-point"},
		{"MPTB (generated)", "mptb-generated"},
		{"manifest.json", "manifestjson"},
		{"Identities and versions", "identities-and-versions"},
		{"`events.csv` rows", "eventscsv-rows"},
		{"See [the protocol](protocol.md)", "see-the-protocol"},
		{"tau_pre and tau_max", "tau_pre-and-tau_max"},
		{"Breakdowns — by group", "breakdowns--by-group"},
	} {
		if got := Slug(c.in); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAnchorsSkipCodeAndNumberDuplicates(t *testing.T) {
	got := Anchors("# Title\n## Metrics\n```\n## not a heading\n```\n## Metrics\n### Metrics ##\n")
	want := []string{"metrics", "metrics-1", "metrics-2", "title"}
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, want) {
		t.Errorf("Anchors = %v, want %v", keys, want)
	}
}

// TestNoCitationOfOutsideDesign: comments, help text, error hints and
// documents cite the documents in docs/, never a design document a user
// of the repository does not have.
func TestNoCitationOfOutsideDesign(t *testing.T) {
	for _, path := range repositoryFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if outsideDesign.MatchString(line) || unnamedSection.MatchString(line) && !namedWork.MatchString(line) {
				t.Errorf("%s:%d cites a design document outside the repository (cite docs/*.md#anchor instead): %s",
					filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator))), i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestCitedDocumentsAndAnchorsExist: every docs/<name>.md#<anchor> cited anywhere
// in the repository, and every relative link between the documents, names
// a document that exists and a heading in it.
func TestCitedDocumentsAndAnchorsExist(t *testing.T) {
	anchors := map[string]map[string]bool{}
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		data, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		anchors[d] = Anchors(string(data))
	}
	for _, want := range []string{"architecture.md", "formats.md", "operations.md", "protocol.md"} {
		if anchors[want] == nil {
			t.Errorf("docs/%s is missing", want)
		}
	}
	check := func(where, doc, anchor string) {
		a, ok := anchors[doc]
		switch {
		case !ok:
			t.Errorf("%s cites docs/%s, which does not exist", where, doc)
		case anchor != "" && !a[strings.TrimPrefix(anchor, "#")]:
			t.Errorf("%s cites docs/%s%s: no heading of docs/%s has that anchor", where, doc, anchor, doc)
		}
	}
	citations := 0
	for _, path := range repositoryFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		inDocs := filepath.Dir(rel) == "docs"
		for i, line := range strings.Split(string(data), "\n") {
			where := fmt.Sprintf("%s:%d", rel, i+1)
			for _, m := range docLink.FindAllStringSubmatch(line, -1) {
				citations++
				check(where, m[1], m[2])
			}
			if !inDocs || filepath.Ext(rel) != ".md" {
				continue
			}
			for _, m := range relativeLink.FindAllStringSubmatch(line, -1) {
				doc := m[1]
				if doc == "" {
					doc = filepath.Base(rel)
				}
				check(where, doc, m[2])
			}
		}
	}
	if citations == 0 {
		t.Error("no file cites docs/*.md: the scan is not reading the repository")
	}
}

// markdownTarget matches the target of every Markdown link or image:
// ](target) or ](target "title").
var markdownTarget = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// TestRelativeLinksResolve: every relative link or image in README.md and
// docs/*.md names a file or folder that exists, and a link with an anchor
// into a Markdown document names one of its headings.
func TestRelativeLinksResolve(t *testing.T) {
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages := append([]string{filepath.Join(root, "README.md")}, docs...)
	anchorsOf := map[string]map[string]bool{}
	anchors := func(path string) map[string]bool {
		if a, ok := anchorsOf[path]; ok {
			return a
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		anchorsOf[path] = Anchors(string(data))
		return anchorsOf[path]
	}
	links := 0
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range markdownTarget.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				where := fmt.Sprintf("%s:%d", filepath.ToSlash(page), i+1)
				file, anchor, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
					if _, err := os.Stat(path); err != nil {
						t.Errorf("%s links to %s, which does not exist", where, target)
						continue
					}
				}
				if anchor != "" && filepath.Ext(path) == ".md" && !anchors(path)[anchor] {
					t.Errorf("%s links to %s: no heading of %s has that anchor", where, target, filepath.ToSlash(path))
				}
			}
		}
	}
	if links < 20 {
		t.Errorf("found only %d relative links in README.md and docs/*.md: is the scan reading them?", links)
	}
}
