package audit_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/floorbench/floorbench/internal/audit"
	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
)

// fixtures are written once per design into tempRoot: tests only read
// them.
var (
	tempRoot    string
	fixtureOnce sync.Map
)

func fixture(t *testing.T, name string, d auditfixture.Design) string {
	t.Helper()
	v, _ := fixtureOnce.LoadOrStore(name, new(fixtureDir))
	f := v.(*fixtureDir)
	f.once.Do(func() {
		f.dir = filepath.Join(tempRoot, name)
		f.err = auditfixture.Write(f.dir, d, 1)
	})
	if f.err != nil {
		t.Fatal(f.err)
	}
	return f.dir
}

type fixtureDir struct {
	once sync.Once
	dir  string
	err  error
}

func run(t *testing.T, dir string, change func(*audit.Options)) *audit.Report {
	t.Helper()
	o := audit.DefaultOptions()
	o.Resamples = 200
	if change != nil {
		change(&o)
	}
	r, err := audit.Run(context.Background(), dir, o, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func task(r *audit.Report, t floor.Task) *audit.TaskAudit {
	for i := range r.Tasks {
		if r.Tasks[i].Task == t {
			return &r.Tasks[i]
		}
	}
	return nil
}

func TestAShortcutCorpusIsFlagged(t *testing.T) {
	r := run(t, fixture(t, "shortcut", auditfixture.Shortcut()), nil)
	in := task(r, floor.TaskINT)
	f := in.Feature("overlap_run_length")
	if !f.Shortcut || !f.InBudget || f.Test.Recall < 0.5 {
		t.Fatalf("overlap run length not flagged: %+v", f)
	}
	var line string
	for _, l := range r.Summary() {
		if strings.HasPrefix(l, "SHORTCUT int (span window): overlap run length — fire once an overlapping run lasts ") {
			line = l
		}
	}
	if line == "" || !strings.Contains(line, "test recall 1.000 [1.000, 1.000] (within 250/500/1000 ms ") || !strings.Contains(line, "at fp_rate 0.000") {
		t.Fatalf("no shortcut line for the overlap run length in %q", r.Summary())
	}
	if in.Best == "" || !in.Feature(in.Best).Shortcut {
		t.Fatalf("best INT feature %q is not a flagged one", in.Best)
	}
	if eot := task(r, floor.TaskEOT); len(eot.Shortcuts) != 0 {
		t.Fatalf("EOT flagged %v with the EOT flag off", eot.Shortcuts)
	}
}

func TestABalancedCorpusIsNotFlagged(t *testing.T) {
	r := run(t, fixture(t, "balanced", auditfixture.Balanced()), nil)
	in := task(r, floor.TaskINT)
	if len(in.Shortcuts) != 0 {
		t.Fatalf("flagged %v on a corpus without a shortcut", in.Shortcuts)
	}
	for _, f := range in.Features {
		for _, w := range score.NegativeWindows {
			if o := f.ByWindow.Under(w); o.InBudget && o.Test.Recall >= 0.5 {
				t.Errorf("%s reaches in-budget recall %v under %s", f.Name, o.Test.Recall, w)
			}
		}
	}
	summary := strings.Join(r.Summary(), "\n")
	if !strings.Contains(summary, "int: no shortcut (no feature reaches in-budget test recall 0.5 under either negative window)") ||
		!strings.Contains(summary, "best int feature (span window): ") {
		t.Fatalf("summary %s", summary)
	}
}

// On a corpus whose claims and backchannels both stop after 0.5 s,
// firing after an overlapping run ends is a shortcut under the span
// window and nothing under the anchored one: the audit flags it, says it
// lives in the blind spot, and keeps the configured (span) window's
// outcome at the top of its row.
func TestTheBlindSpotIsFlaggedUnderSpanOnly(t *testing.T) {
	r := run(t, fixture(t, "blindspot", auditfixture.BlindSpot()), nil)
	in := task(r, floor.TaskINT)
	f := in.Feature("overlap_run_end")
	if !f.ByWindow.Span.Shortcut || f.ByWindow.Anchored.Shortcut || !f.Shortcut {
		t.Fatalf("fire after overlap: span %+v, anchored %+v", f.ByWindow.Span, f.ByWindow.Anchored)
	}
	if f.ByWindow.Anchored.InBudget && f.ByWindow.Anchored.Test.Recall >= 0.5 {
		t.Fatalf("anchored: in budget at recall %v", f.ByWindow.Anchored.Test.Recall)
	}
	if f.Theta != f.ByWindow.Span.Theta || f.InBudget != f.ByWindow.Span.InBudget || f.Test.FPRate != f.ByWindow.Span.Test.FPRate {
		t.Fatalf("top-level outcome %+v is not the span window's %+v", f.Outcome, f.ByWindow.Span.Outcome)
	}
	summary := strings.Join(r.Summary(), "\n")
	if !strings.Contains(summary, "BLIND SPOT int: silence after an overlapping run is a shortcut under the span window only") {
		t.Fatalf("summary %s", summary)
	}
	if !slices.Contains(in.Shortcuts, "overlap_run_end") {
		t.Fatalf("shortcuts %v", in.Shortcuts)
	}
	// Under the anchored window as configured, the rule is still flagged
	// (under span) and the top of its row reads the anchored outcome.
	anchored := run(t, fixture(t, "blindspot", auditfixture.BlindSpot()), func(o *audit.Options) { o.Params.NegativeWindow = score.AnchoredWindow })
	g := task(anchored, floor.TaskINT).Feature("overlap_run_end")
	if !g.Shortcut || g.InBudget != g.ByWindow.Anchored.InBudget || g.Theta != g.ByWindow.Anchored.Theta {
		t.Fatalf("configured anchored: %+v", g)
	}
}

// Every rule has a row under each window with its recall within each
// latency budget; the cross-channel rule is reported under each window
// with its latency and recall within the budgets, never flagged.
func TestRowsGiveRecallWithinAndTheCrossChannelRuleIsReported(t *testing.T) {
	r := run(t, fixture(t, "shortcut", auditfixture.Shortcut()), nil)
	in := task(r, floor.TaskINT)
	tb := in.Table()
	if got, want := len(tb.Rows), 2*len(in.Features); got != want {
		t.Fatalf("%d rows, want %d", got, want)
	}
	for _, row := range tb.Rows {
		if row[1] != "span" && row[1] != "anchored" {
			t.Errorf("row %q has no window", row)
		}
		if row[3] != "—" && !strings.Contains(row[7], "500: ") {
			t.Errorf("row %q lacks recall within 500 ms", row)
		}
	}
	f := in.Feature("holder_silence")
	if f.Shortcut || f.ByWindow.Span.Shortcut || f.ByWindow.Anchored.Shortcut {
		t.Fatalf("cross-channel rule flagged: %+v", f)
	}
	n := 0
	for _, l := range r.Summary() {
		if strings.HasPrefix(l, "reported, not flagged (cross-channel) int (") && strings.Contains(l, "holder silence since claim") && strings.Contains(l, ", p50 ") {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("cross-channel lines: %d, want one per window, in %q", n, r.Summary())
	}
}

func TestTheEOTFlagIsAParameter(t *testing.T) {
	dir := fixture(t, "balanced", auditfixture.Balanced())
	r := run(t, dir, func(o *audit.Options) { o.EOTFlagRecall = 0.5 })
	// The fixture's holds are 0.6 s and its turns end in 2 s of silence,
	// so a silence timeout solves EOT.
	eot := task(r, floor.TaskEOT)
	if f := eot.Feature("own_silence"); !f.Shortcut || f.Test.Recall != 1 {
		t.Fatalf("own silence on EOT: %+v", f)
	}
	if r.Params.EOTFlagRecall == nil || *r.Params.EOTFlagRecall != 0.5 {
		t.Fatalf("params %+v", r.Params)
	}
}

func TestWithoutDevThresholdsArePickedOnTest(t *testing.T) {
	d := auditfixture.Shortcut()
	d.Dev = 0
	r := run(t, fixture(t, "nodev", d), nil)
	if r.Corpus.ThresholdSplit != "test" || r.Corpus.Dev != 0 {
		t.Fatalf("corpus %+v", r.Corpus)
	}
	if !strings.Contains(strings.Join(r.Summary(), "\n"), "no labelled dev split: thresholds picked on test itself") {
		t.Fatalf("summary does not say where thresholds come from: %q", r.Summary())
	}
}

func TestOracleWordsAreListedOnlyWithWordCounts(t *testing.T) {
	r := run(t, fixture(t, "shortcut", auditfixture.Shortcut()), nil)
	f := task(r, floor.TaskINT).Feature("words")
	if !r.Corpus.WordCounts || f == nil || !f.Oracle || !strings.Contains(f.Rule, "oracle transcript") {
		t.Fatalf("words feature %+v", f)
	}
	for _, f := range audit.Features(false) {
		if f.Oracle {
			t.Fatalf("oracle feature %s without word counts", f.Name)
		}
	}
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "audit-fixtures-")
	if err != nil {
		panic(err)
	}
	tempRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
