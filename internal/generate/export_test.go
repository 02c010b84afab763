package generate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/limits"
)

func TestExportRTTMAndTextGrid(t *testing.T) {
	dir := tiny(t)
	c, _ := corpus.Open(dir, limits.Default())
	conv := c.Manifest.Conversations[0]
	log, _ := c.Events(conv)
	out := t.TempDir()
	if n, err := corpus.Export(dir, "rttm", out, limits.Default()); err != nil || n != 12 {
		t.Fatalf("rttm: %d files, %v", n, err)
	}
	data, _ := os.ReadFile(filepath.Join(out, conv.ID+".rttm"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	speech := 0
	for _, e := range log.Events {
		speech += 1 + len(e.Holds) + len(e.Restarts)
	}
	if len(lines) != speech || !strings.HasPrefix(lines[0], "SPEAKER "+conv.ID+" 1 ") {
		t.Fatalf("%d RTTM lines for %d speech stretches; first %q", len(lines), speech, lines[0])
	}
	if n, err := corpus.Export(dir, "textgrid", out, limits.Default()); err != nil || n != 12 {
		t.Fatalf("textgrid: %d files, %v", n, err)
	}
	tg, _ := os.ReadFile(filepath.Join(out, conv.ID+".TextGrid"))
	s := string(tg)
	if !strings.HasPrefix(s, "File type = \"ooTextFile\"") || strings.Count(s, "class = \"IntervalTier\"") != conv.Speakers ||
		!strings.Contains(s, `text = "TURN (yielded)"`) {
		t.Fatalf("TextGrid:\n%s", s[:min(len(s), 600)])
	}
	if _, err := corpus.Export(dir, "csv", out, limits.Default()); err == nil || !strings.Contains(err.Error(), `unknown export format "csv"`) {
		t.Fatalf("err = %v", err)
	}
}
