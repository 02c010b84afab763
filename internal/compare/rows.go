package compare

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"math"
	"slices"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
)

// Subject is what one row of a comparison compares: a system on a
// corpus, one task.
type Subject struct {
	Corpus string     `json:"corpus"`
	System string     `json:"system"`
	Task   floor.Task `json:"task"`
}

// Rates are a row's test recall and fp_rate in the old and the new
// bundle; NaN where a bundle has no test result for it.
type Rates struct {
	OldRecall report.Num `json:"old_recall"`
	NewRecall report.Num `json:"new_recall"`
	OldFPRate report.Num `json:"old_fp_rate"`
	NewFPRate report.Num `json:"new_fp_rate"`
}

// row is one subject and its task result in each bundle, nil where that
// bundle does not have it.
type row struct {
	Subject
	old, cur *taskInBundle
}

// rows merges two bundles' results into one row per subject of either,
// sorted by corpus, system and task.
func rows(old, cur *bundle.Results) []row {
	o, n := indexTasks(old), indexTasks(cur)
	subjects := slices.Collect(maps.Keys(o))
	for s := range n {
		if _, ok := o[s]; !ok {
			subjects = append(subjects, s)
		}
	}
	slices.SortFunc(subjects, func(a, b Subject) int {
		return cmp.Or(cmp.Compare(a.Corpus, b.Corpus), cmp.Compare(a.System, b.System), cmp.Compare(a.Task, b.Task))
	})
	out := make([]row, len(subjects))
	for i, s := range subjects {
		out[i].Subject = s
		if t, ok := o[s]; ok {
			out[i].old = &t
		}
		if t, ok := n[s]; ok {
			out[i].cur = &t
		}
	}
	return out
}

// rates are the row's test recall and fp_rate in each bundle.
func (r row) rates() Rates {
	out := Rates{nan(), nan(), nan(), nan()}
	if r.old != nil && r.old.Test != nil {
		out.OldRecall, out.OldFPRate = r.old.Test.Recall, r.old.Test.FPRate
	}
	if r.cur != nil && r.cur.Test != nil {
		out.NewRecall, out.NewFPRate = r.cur.Test.Recall, r.cur.Test.FPRate
	}
	return out
}

func nan() report.Num { return report.Num(math.NaN()) }

// taskInBundle is a task result with the hashes of what produced it.
type taskInBundle struct {
	evaluate.TaskResult
	systemHash, corpusHash string
}

// identical reports byte-identical inputs (system and corpus) with the
// same results.
func (t taskInBundle) identical(u taskInBundle) bool {
	if t.systemHash == "" || t.systemHash != u.systemHash || t.corpusHash != u.corpusHash {
		return false
	}
	a, errA := json.Marshal(t.TaskResult)
	b, errB := json.Marshal(u.TaskResult)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

func indexTasks(r *bundle.Results) map[Subject]taskInBundle {
	m := map[Subject]taskInBundle{}
	for _, e := range r.Evaluations {
		for _, t := range e.Tasks {
			m[Subject{e.Corpus, e.System, t.Task}] = taskInBundle{t, e.SystemHash, e.CorpusHash}
		}
	}
	return m
}
