package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/detect"
)

// publishedRow matches a row of systems.md's table of published systems:
// | [name](#anchor) | tables | status | spec |.
var publishedRow = regexp.MustCompile(`^\| \[([^\]]+)\]\(#([a-z0-9-]+)\) \| ([^|]+) \| ([^|]+) \|`)

// publishedDoc reads the "Published systems" section of systems.md: each
// system's status from its own section (### name, then **Status:**) and
// its tables and status from the summary table.
func publishedDoc(t *testing.T) (sections map[string]string, table map[string][2]string, anchors map[string]string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "docs", "systems.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "\n## Published systems\n")
	if start < 0 {
		t.Fatal("docs/systems.md has no section Published systems")
	}
	text = text[start+1:]
	if end := strings.Index(text[3:], "\n## "); end >= 0 {
		text = text[:end+3]
	}
	sections, table, anchors = map[string]string{}, map[string][2]string{}, map[string]string{}
	current := ""
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "### "):
			current = strings.TrimPrefix(line, "### ")
			if _, dup := sections[current]; dup {
				t.Errorf("docs/systems.md: section %q twice", current)
			}
			sections[current] = ""
		case strings.HasPrefix(line, "**Status:** ") && current != "" && sections[current] == "":
			sections[current] = strings.TrimPrefix(line, "**Status:** ")
		default:
			if m := publishedRow.FindStringSubmatch(line); m != nil {
				table[m[1]] = [2]string{strings.TrimSpace(m[3]), strings.TrimSpace(m[4])}
				anchors[m[1]] = m[2]
			}
		}
	}
	return sections, table, anchors
}

// docs/systems.md and `floorbench systems` list the same published
// systems with the same status, from one table in code
// (detect.PublishedSystems): a system added to one and not the other, or
// a status changed in one, fails here.
func TestPublishedSystemsMatchTheDocs(t *testing.T) {
	sections, table, anchors := publishedDoc(t)
	listed := map[string]bool{}
	for _, s := range detect.PublishedSystems() {
		listed[s.Name] = true
		status, ok := sections[s.Name]
		switch {
		case !ok:
			t.Errorf("%s is listed by floorbench systems but has no section in docs/systems.md#published-systems", s.Name)
		case status != string(s.Status):
			t.Errorf("%s: docs/systems.md says status %q, floorbench systems %q", s.Name, status, s.Status)
		}
		tables := s.Tables
		if tables == "" {
			tables = "neither"
		}
		if row, ok := table[s.Name]; !ok {
			t.Errorf("%s is not in docs/systems.md's table of published systems", s.Name)
		} else if row != [2]string{tables, string(s.Status)} {
			t.Errorf("%s: docs/systems.md's table says %q, %q; floorbench systems %q, %q", s.Name, row[0], row[1], tables, s.Status)
		}
		if want := Slug(s.Name); ok && anchors[s.Name] != want {
			t.Errorf("%s: the table links #%s, its section is #%s", s.Name, anchors[s.Name], want)
		}
		for _, f := range strings.Split(s.Runs, ", ") {
			if strings.HasSuffix(f, ".yaml") {
				path := filepath.Join(root, "examples", "systems", filepath.Base(f))
				if strings.HasPrefix(f, "models/") {
					path = filepath.Join(root, f) // a shipped model's spec lies beside its file
				}
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s runs from %s: %v", s.Name, f, err)
				}
			}
		}
	}
	for name := range sections {
		if !listed[name] {
			t.Errorf("docs/systems.md has a section %q that floorbench systems does not list", name)
		}
	}
	for name := range table {
		if !listed[name] {
			t.Errorf("docs/systems.md's table has %q, which floorbench systems does not list", name)
		}
	}
}
