package inprocess_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/detect/fromcorpus"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/inprocess"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep/sweepfixture"
)

// oneTaskSweep is a sweep of one corpus and three systems: rms and two
// external ones (SYSTEMS) whose spec files lie in the test's folder.
const oneTaskSweep = `name: tasks
corpora:
  - {name: withdev, path: CORPUS}
systems:
  - {name: rms, builtin: rms}
SYSTEMS
bootstrap: {resamples: 20, seed: 5}
concurrency: 2
`

// An EOT-only and an INT-only system (external folders holding the
// rms-endpointer tracks of one task) beside a both-task one, run in process to
// a bundle: each is on the leaderboard of its task and nowhere on the
// other's, not in results.json's leaderboards, paired comparisons or
// evaluations, not in report.md's tables, the CSV rows, events.csv, the
// stored tracks or a bundle diff. Each leaderboard is the one the same
// tracks make with a both-task system (ranks, numbers, pairs): neither
// the one-task system nor the both-task one beside it changes.
func TestOneTaskSystemsAreAbsentFromTheOtherTask(t *testing.T) {
	ctx := context.Background()
	_, dirs := sweepfixture.Spec(t)
	root := t.TempDir()
	eot, intr := endpointerProbs(t, dirs[0])
	spec := func(name string, e, i bool) string {
		dir := filepath.Join(root, name)
		var p, q = eot, intr
		if !e {
			p = nil
		}
		if !i {
			q = nil
		}
		if err := detect.WriteProbsFiles(dir, p, q); err != nil {
			t.Fatal(err)
		}
		claim := ""
		if e != i {
			claim = map[bool]string{true: "tasks: [eot]\n", false: "tasks: [int]\n"}[e]
		}
		path := filepath.Join(root, name+".yaml")
		if err := os.WriteFile(path, []byte("family: external\n"+claim+"params: {dir: "+dir+"}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return "  - {name: " + name + ", spec: " + path + "}\n"
	}
	both := strings.NewReplacer("CORPUS", dirs[0], "SYSTEMS\n", spec("turn-both", true, true)).Replace(oneTaskSweep)
	mixed := strings.NewReplacer("CORPUS", dirs[0], "SYSTEMS\n", spec("turn-eot", true, false)+spec("turn-int", false, true)).Replace(oneTaskSweep)

	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	counting := &countingStore{Store: st}
	a := &activities.Activities{Store: counting, Scratch: t.TempDir()}
	base := runToResults(t, a, both)
	in := sweepfixture.Resolved(t, mixed)
	hashes := map[string]string{}
	for _, s := range in.Systems {
		hashes[s.Name] = s.Hash
	}
	if in.Systems[0].Tasks != nil || !slices.Equal(in.Systems[1].Tasks, []floor.Task{floor.TaskEOT}) || !slices.Equal(in.Systems[2].Tasks, []floor.Task{floor.TaskINT}) {
		t.Fatalf("resolved tasks: %v, %v, %v", in.Systems[0].Tasks, in.Systems[1].Tasks, in.Systems[2].Tasks)
	}
	counting.puts = nil
	id, err := inprocess.Run(ctx, in, a, activities.Admission{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := bundle.ReadResults(ctx, st, id)
	if err != nil {
		t.Fatal(err)
	}

	// No track of the missing task was written.
	written := map[string]int{}
	for _, k := range counting.puts {
		for name, h := range hashes {
			for _, task := range floor.Tasks {
				if strings.HasPrefix(k, "tracks/"+h+"/") && strings.HasSuffix(k, "."+string(task)+".json") {
					written[name+" "+string(task)]++
				}
			}
		}
	}
	if written["turn-eot int"] != 0 || written["turn-int eot"] != 0 || written["turn-eot eot"] == 0 || written["turn-int int"] == 0 {
		t.Errorf("tracks written per system and task: %v", written)
	}

	absent := map[floor.Task]string{floor.TaskEOT: "turn-int", floor.TaskINT: "turn-eot"}
	present := map[floor.Task]string{floor.TaskEOT: "turn-eot", floor.TaskINT: "turn-int"}
	for _, e := range res.Evaluations {
		for _, tr := range e.Tasks {
			if absent[tr.Task] == e.System {
				t.Errorf("results.json: evaluation of %s has a %s section", e.System, tr.Task)
			}
		}
	}
	if len(res.Leaderboards) != 2 {
		t.Fatalf("%d leaderboards, want EOT and INT", len(res.Leaderboards))
	}
	for _, lb := range res.Leaderboards {
		var systems []string
		for _, r := range lb.Rows {
			systems = append(systems, r.System)
		}
		for _, p := range lb.Paired {
			if p.A == absent[lb.Task] || p.B == absent[lb.Task] {
				t.Errorf("%s paired comparison %s − %s", lb.Task, p.A, p.B)
			}
		}
		if slices.Contains(systems, absent[lb.Task]) || !slices.Contains(systems, present[lb.Task]) || !slices.Contains(systems, "rms") {
			t.Errorf("%s leaderboard of %v", lb.Task, systems)
		}
		for _, row := range lb.CSVRows() {
			if row[2] == absent[lb.Task] {
				t.Errorf("CSV row %v", row)
			}
		}
		// It fires on the fixture's turn ends, the rms gate never does: it
		// ranks first, though its name sorts after rms.
		if first := lb.Rows[0]; first.System != present[lb.Task] || first.Rank == nil || *first.Rank != 1 || first.Test.Recall != 1 {
			t.Errorf("%s leaderboard led by %s", lb.Task, first.System)
		}
		// The one-task system ranks, scores and pairs as the same tracks
		// do in a both-task system (named so that it sorts as the
		// one-task systems do against rms).
		want := leaderboardOf(t, base, lb.Task)
		if got := renamed(t, lb.TaskLeaderboard, present[lb.Task]); got != renamed(t, want, "turn-both") {
			t.Errorf("%s leaderboard of the one-task system differs from its both-task twin:\n%s\n%s", lb.Task, got, renamed(t, want, "turn-both"))
		}
	}
	report := string(readBundleFile(t, st, id, "report.md"))
	title := ""
	for _, block := range strings.Split(report, "\n\n") {
		if strings.HasPrefix(block, "**") {
			title = block
			continue
		}
		if !strings.HasPrefix(block, "|") {
			title = ""
			continue
		}
		for task, system := range absent {
			if strings.Contains(title, strings.ToUpper(string(task))) && strings.Contains(block, "| "+system+" |") {
				t.Errorf("report.md: %s under %q", system, title)
			}
		}
		for _, line := range strings.Split(block, "\n") {
			if strings.Contains(line, "| turn-eot | int |") || strings.Contains(line, "| turn-int | eot |") {
				t.Errorf("report.md row %q", line)
			}
		}
	}
	if !strings.Contains(report, "| turn-int |") || !strings.Contains(report, "| turn-eot |") {
		t.Error("report.md does not show the one-task systems")
	}
	for _, tb := range bundle.ReportTables(res) {
		var buf bytes.Buffer
		if err := tb.CSV(&buf); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), "turn-eot,int") || strings.Contains(buf.String(), "turn-int,eot") ||
			(strings.Contains(tb.Title, "INT") && strings.Contains(buf.String(), "turn-eot")) {
			t.Errorf("CSV table %q:\n%s", tb.Title, buf.String())
		}
	}
	events := string(readBundleFile(t, st, id, "events.csv"))
	if strings.Contains(events, ",turn-eot,int,") || strings.Contains(events, ",turn-int,eot,") || !strings.Contains(events, ",turn-eot,eot,") {
		t.Error("events.csv has rows of a task a system does not score, or none of the one it does")
	}
	for _, c := range compare.Diff(res, res, 0) {
		if absent[c.Task] == c.System {
			t.Errorf("bundle diff row %+v", c.Subject)
		}
	}
	for _, r := range compare.Paired(base, res, compare.PairedOptions{}).Rows {
		if absent[r.Task] == r.System {
			t.Errorf("paired verdict row %+v", r.Subject)
		}
	}
}

// endpointerProbs are the rms-endpointer system's probability files on
// every conversation of the corpus in dir: unlike the rms gate's, its EOT
// track fires on the fixture's turn ends.
func endpointerProbs(t *testing.T, dir string) (eot, intr *score.ProbsFile) {
	t.Helper()
	c, err := corpus.Open(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	src, err := fromcorpus.Source(c, "")
	if err != nil {
		t.Fatal(err)
	}
	sys, err := detect.Builtin("rms-endpointer")
	if err != nil {
		t.Fatal(err)
	}
	d, err := sys.Open(detect.Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	eot, intr, err = detect.ProbsFiles(context.Background(), d, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	return eot, intr
}

// runToResults runs a sweep in process and reads its results back.
func runToResults(t *testing.T, a *activities.Activities, specYAML string) *bundle.Results {
	t.Helper()
	id, err := inprocess.Run(context.Background(), sweepfixture.Resolved(t, specYAML), a, activities.Admission{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := bundle.ReadResults(context.Background(), a.Store, id)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func leaderboardOf(t *testing.T, res *bundle.Results, task floor.Task) report.TaskLeaderboard {
	t.Helper()
	for _, lb := range res.Leaderboards {
		if lb.Task == task {
			return lb.TaskLeaderboard
		}
	}
	t.Fatalf("no %s leaderboard", task)
	return report.TaskLeaderboard{}
}

// renamed is lb as JSON with system name replaced by a placeholder.
func renamed(t *testing.T, lb report.TaskLeaderboard, name string) string {
	t.Helper()
	data, err := json.Marshal(lb)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(data), `"`+name+`"`, `"SYSTEM"`)
}

func readBundleFile(t *testing.T, st store.Store, id, name string) []byte {
	t.Helper()
	data, err := store.GetBytes(context.Background(), st, keys.Bundle(id, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
