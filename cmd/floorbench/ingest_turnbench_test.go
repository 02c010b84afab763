package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/ingest/turnbench/tbfixture"
)

// TestIngestTurnBenchThenGoldThenScore runs the whole path a user takes:
// ingest the parquet shards, check and describe the corpus, derive its
// dev gold, and score a perfect submission against it.
func TestIngestTurnBenchThenGoldThenScore(t *testing.T) {
	dir := t.TempDir()
	dev, test, err := tbfixture.WriteFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "corpus")
	stdout, stderr, code := run(t, "corpus", "ingest", "turnbench", "--parquet", dev, "--parquet", test, "--out", out)
	if want := "wrote 3 conversations (1 unlabelled) to " + out + "\n"; code != 0 || stdout != want {
		t.Fatalf("ingest: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	stdout, stderr, code = run(t, "corpus", "check", out)
	if !strings.HasPrefix(stdout, out+": 3 conversations ok (") || code != 0 {
		t.Errorf("check: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	// Another build of the code ingests the same bytes, so the corpus keeps
	// its hash and everything keyed by it.
	if !testing.Short() {
		again := filepath.Join(dir, "again")
		if msg, err := exec.Command(anotherBuild(t), "corpus", "ingest", "turnbench", "--parquet", dev, "--parquet", test, "--out", again).CombinedOutput(); err != nil {
			t.Fatalf("ingest by another build: %v: %s", err, msg)
		}
		first, _ := os.ReadFile(filepath.Join(out, "corpus.json"))
		if second, _ := os.ReadFile(filepath.Join(again, "corpus.json")); len(first) == 0 || !bytes.Equal(first, second) {
			t.Errorf("another build ingested another manifest:\n%.300s\nagainst\n%.300s", second, first)
		}
	}
	stdout, stderr, code = run(t, "corpus", "stats", out)
	if code != 0 || !strings.Contains(stdout, "turnbench: 3 conversations (1 unlabelled)") || !strings.Contains(stdout, "split test") || !strings.Contains(stdout, "type debate") {
		t.Errorf("stats: exit %d\n%s%s", code, stdout, stderr)
	}

	stdout, stderr, code = run(t, "gold", "--corpus", out, "--split", "dev", "-o", "json")
	if code != 0 {
		t.Fatalf("gold: exit %d: %s", code, stderr)
	}
	want := &floor.GoldSet{TauPre: floor.DefaultTauPre, TauMax: floor.DefaultTauMax, Conversations: tbfixture.Gold()}
	var wantJSON bytes.Buffer
	if err := floor.WriteGoldSet(&wantJSON, want); err != nil {
		t.Fatal(err)
	}
	if stdout != wantJSON.String() {
		t.Errorf("gold --corpus differs from the fixture's gold worked out by hand (tbfixture.Gold):\n%s\nwant\n%s", stdout, wantJSON.String())
	}
	gold := writeFile(t, dir, "gold.json", stdout)
	pred := writeFile(t, dir, "pred.json", perfectSubmission(t, want))
	stdout, stderr, code = run(t, "score", "--gold", gold, "--predictions", pred, "-o", "json")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, stderr)
	}
	var res struct {
		EOT, INT struct {
			TP, FN int
			Recall float64
		}
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.EOT.TP == 0 || res.EOT.FN != 0 || res.EOT.Recall != 1 || res.INT.TP == 0 || res.INT.Recall != 1 {
		t.Errorf("a perfect submission scores %+v", res)
	}

	stdout, stderr, code = run(t, "gold", "--corpus", out, "--split", "test")
	if code == 0 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "tb-101") || !strings.Contains(stderr, "unlabelled") {
		t.Errorf("gold of the unlabelled test split: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}

// perfectSubmission predicts every gold anchor at its time.
func perfectSubmission(t *testing.T, g *floor.GoldSet) string {
	type tasks struct {
		EOT []float64 `json:"eot"`
		INT []float64 `json:"interruption"`
	}
	var preds []map[string]any
	for _, c := range g.Conversations {
		sp := [2]tasks{{[]float64{}, []float64{}}, {[]float64{}, []float64{}}}
		for _, a := range c.EOT.Positives {
			sp[a.Speaker-1].EOT = append(sp[a.Speaker-1].EOT, a.Time)
		}
		for _, a := range c.INT.Positives {
			sp[a.Speaker-1].INT = append(sp[a.Speaker-1].INT, a.Time)
		}
		preds = append(preds, map[string]any{"conversation_id": c.ID, "speaker_1": sp[0], "speaker_2": sp[1]})
	}
	data, err := json.Marshal(map[string]any{"schema_version": 1, "predictions": preds})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestIngestTurnBenchBadInputFailsWithOneLine(t *testing.T) {
	dir := t.TempDir()
	notParquet := writeFile(t, dir, "x.parquet", "conversation_id\n1\n")
	tab, err := tbfixture.Build(tbfixture.Default()[:1])
	if err != nil {
		t.Fatal(err)
	}
	tab.Rows[0]["conversation_id"] = "../../etc"
	traversal := filepath.Join(dir, "traversal.parquet")
	if err := tab.Write(traversal); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, file, want string }{
		{"not parquet", notParquet, notParquet + ": not a readable parquet file"},
		{"traversal id", traversal, traversal + `: row 0 (conversation_id (not quoted)): column "conversation_id": value (not quoted) is not a valid conversation id`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "out")
			stdout, stderr, code := run(t, "corpus", "ingest", "turnbench", "--parquet", c.file, "--out", out)
			if code == 0 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "floorbench: "+c.want) {
				t.Errorf("exit %d stdout %q\nstderr %q\nwant   %q", code, stdout, stderr, "floorbench: "+c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s exists after a failed ingest", out)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 2 {
				t.Errorf("left behind: %v", fmt.Sprint(entries))
			}
		})
	}
}
