package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

// storePairedBundle writes a bundle whose one system found found of ten
// turn ends in each of 30 test conversations (one false alarm in 20
// negatives each), with its per-conversation counts, and returns its id.
func storePairedBundle(t *testing.T, storeDir, name, systemHash string, found int) string {
	t.Helper()
	var per []evaluate.ConvCounts
	var sum score.Counts
	for i := range 30 {
		c := evaluate.ConvCounts{ID: fmt.Sprintf("c%02d", i), TP: found, FN: 10 - found, FP: 1, TN: 19}
		per = append(per, c)
		sum.TP, sum.FN, sum.FP, sum.TN = sum.TP+c.TP, sum.FN+c.FN, sum.FP+c.FP, sum.TN+c.TN
	}
	m := report.Metrics(sum, nil)
	meta := bundle.Meta{Name: name, Protocol: score.DefaultParams(), Resamples: 500, Seed: 1}
	eval := evaluate.Evaluation{System: "s", SystemHash: systemHash, Corpus: "c", CorpusHash: "h", Tasks: []evaluate.TaskResult{{
		Task: floor.TaskEOT, HasOP: true, InBudget: true, Test: &m, TestByConv: per}}}
	return writeBundle(t, storeDir, meta, eval)
}

// Bundles that share conversations are compared paired by default: a
// drop whose CI is below the tolerance exits 1 with the CI in the JSON, a
// system unchanged in hash and results is identical (exit 0), and
// --paired=false goes back to the point estimates.
func TestBundleDiffPaired(t *testing.T) {
	st := t.TempDir()
	good, same, worse := storePairedBundle(t, st, "good", "h1", 8), storePairedBundle(t, st, "same", "h1", 8), storePairedBundle(t, st, "worse", "h2", 6)
	diff := func(args ...string) (string, string, int) {
		return run(t, append([]string{"bundle", "diff", "--store-dir", st, "--config", ""}, args...)...)
	}
	stdout, stderr, code := diff(good, worse, "-o", "json")
	var v compare.Verdict
	if code != 1 || json.Unmarshal([]byte(stdout), &v) != nil || len(v.Rows) != 1 {
		t.Fatalf("paired diff of a drop: exit %d, %q, %q", code, stdout, stderr)
	}
	if r := v.Rows[0]; r.Verdict != compare.Regressed || r.Recall == nil || !(r.Recall.Hi < -0.005) || r.Conversations != 30 {
		t.Errorf("row %+v: want regressed with a recall CI below -tolerance over 30 conversations", r)
	}
	if stdout, stderr, code := diff(good, same); code != 0 || !strings.Contains(stdout, "identical") {
		t.Errorf("paired diff of the same system: exit %d, %q, %q", code, stdout, stderr)
	}
	if stdout, _, code := diff(good, worse, "--paired=false"); code != 1 || !strings.Contains(stdout, "regression") || strings.Contains(stdout, "CI") {
		t.Errorf("--paired=false: exit %d, %q; want the point-estimate table", code, stdout)
	}
}
