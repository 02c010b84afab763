package audit_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/floorbench/floorbench/internal/audit"
	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/floor"
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
	r, err := audit.Run(context.Background(), dir, o)
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
		if strings.HasPrefix(l, "SHORTCUT int: overlap run length — fire once an overlapping run lasts ") {
			line = l
		}
	}
	if line == "" || !strings.Contains(line, "test recall 1.000 [1.000, 1.000] at fp_rate 0.000") {
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
		if f.InBudget && f.Test.Recall >= 0.5 {
			t.Errorf("%s reaches in-budget recall %v", f.Name, f.Test.Recall)
		}
	}
	summary := strings.Join(r.Summary(), "\n")
	if !strings.Contains(summary, "int: no shortcut (no feature reaches in-budget test recall 0.5)") ||
		!strings.Contains(summary, "best int feature: ") {
		t.Fatalf("summary %s", summary)
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
