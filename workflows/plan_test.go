package workflows

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/sweep"
)

// planInput is a sweep of two systems (b runs a model) over four planned
// corpora: sim (generated, with dev data), real-dev (with dev data), real
// (without, taking the default source) and tb (without, transfer_from
// real-dev).
func planInput() (sweep.Input, []activities.CorpusPlan) {
	resamples := 100
	s := spec.Sweep{Name: "plan", Concurrency: 2, Bootstrap: spec.Bootstrap{Resamples: &resamples, Seed: 7},
		Corpora: []spec.Corpus{{Name: "sim", Generate: &spec.Generate{Preset: "tiny", Seed: 1}},
			{Name: "real-dev", Path: "/d"}, {Name: "real", Path: "/r"}, {Name: "tb", Path: "/t", TransferFrom: "real-dev"}},
		Systems: []spec.System{{Name: "a", Builtin: "rms"}, {Name: "b", Builtin: "silero"}}}
	s.Normalise()
	in := sweep.Input{Spec: s, SpecHash: "spec", CodeVersion: "v",
		Systems: []sweep.SystemRef{{Name: "a", Hash: "ha"}, {Name: "b", Hash: "hb", NeedsModel: true}}}
	plans := []activities.CorpusPlan{
		{Name: "sim", Prefix: "corpora/hs", Hash: "hs", Kind: "mptb", Ready: true, Conversations: []string{"s1", "s2", "s3", "s4", "s5"}},
		{Name: "real-dev", Prefix: "corpora/hd", Hash: "hd", Kind: "ami", Ready: true, Conversations: []string{"d1"}},
		{Name: "real", Prefix: "corpora/hr", Hash: "hr", Kind: "ami", Ready: true, NoDev: true, Conversations: []string{"r1", "r2"}},
		{Name: "tb", Prefix: "corpora/ht", Hash: "ht", Kind: "turnbench", Ready: true, NoDev: true, Conversations: []string{"t1", "t2", "t3", "t4"}},
	}
	for _, p := range plans {
		in.Corpora = append(in.Corpora, sweep.CorpusSource{Name: p.Name, Prefix: p.Prefix})
	}
	return in, plans
}

// The plan lists every system on every corpus system by system, with its
// queue, batches and threshold source; orders sources first; audits the
// generated corpus only; and names every input in the bundle's meta.
func TestNewPlan(t *testing.T) {
	in, plans := planInput()
	p := NewPlan(in, plans)
	type row struct {
		name, queue string
		source      int
		batches     string
	}
	want := []row{
		{"eval-a-sim", spec.QueueCPU, -1, "[[s1 s2 s3] [s4 s5]]"},
		{"eval-a-real-dev", spec.QueueCPU, -1, "[[d1]]"},
		{"eval-a-real", spec.QueueCPU, 0, "[[r1] [r2]]"},
		{"eval-a-tb", spec.QueueCPU, 1, "[[t1 t2] [t3 t4]]"},
		{"eval-b-sim", spec.QueueGPU, -1, "[[s1 s2 s3] [s4 s5]]"},
		{"eval-b-real-dev", spec.QueueGPU, -1, "[[d1]]"},
		{"eval-b-real", spec.QueueGPU, 4, "[[r1] [r2]]"},
		{"eval-b-tb", spec.QueueGPU, 5, "[[t1 t2] [t3 t4]]"},
	}
	var got []row
	for _, e := range p.Evaluations {
		got = append(got, row{e.Name, e.Input.Queue, e.Source, fmt.Sprint(e.Input.Batches(e.Input.Corpus.Conversations))})
		if e.Input.CPUQueue != spec.QueueCPU || e.Input.Concurrency != 2 || e.Input.Resamples != 100 || e.Input.Seed != 7 {
			t.Errorf("%s: input %+v", e.Name, e.Input)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("evaluations\n got %v\nwant %v", got, want)
	}
	if fmt.Sprint(p.Order) != "[0 1 4 5 2 3 6 7]" {
		t.Errorf("order %v, want the evaluations on corpora with dev data first", p.Order)
	}
	for i, deps := range map[int]string{0: "[2]", 1: "[3]", 4: "[6]", 5: "[7]", 2: "[]", 6: "[]"} {
		if fmt.Sprint(p.Dependents(i)) != deps {
			t.Errorf("dependents of %d: %v, want %s", i, p.Dependents(i), deps)
		}
	}
	if len(p.Audits) != 1 || p.Audits[0].Corpus.Name != "sim" || p.Audits[0].Resamples != 100 || p.Audits[0].Seed != 7 {
		t.Errorf("audits %+v, want the generated corpus's", p.Audits)
	}
	if fmt.Sprint(p.Meta.Inputs) != "[{corpus sim hs} {corpus real-dev hd} {corpus real hr} {corpus tb ht} {system a ha} {system b hb}]" ||
		p.Meta.SpecHash != "spec" || p.Meta.CodeVersion != "v" || p.Meta.Resamples != 100 {
		t.Errorf("meta %+v", p.Meta)
	}
}

// A planned key names everything the evaluation depends on: an evaluation
// on a corpus without dev data transfers from its source's key, so the
// source's key is in its own.
func TestNewPlanKeys(t *testing.T) {
	in, plans := planInput()
	p := NewPlan(in, plans)
	params := in.Spec.Params()
	key := func(sys, corpus int, transfer *activities.Transfer) string {
		return activities.EvaluationKey(activities.EvaluateInput{System: in.Systems[sys], Corpus: plans[corpus],
			Params: params, Resamples: 100, Seed: 7, Transfer: transfer})
	}
	aSim, bDev := key(0, 0, nil), key(1, 1, nil)
	want := map[string]string{
		"eval-a-sim":  aSim,
		"eval-a-real": key(0, 2, &activities.Transfer{Corpus: "sim", Evaluation: aSim}),
		"eval-b-tb":   key(1, 3, &activities.Transfer{Corpus: "real-dev", Evaluation: bDev}),
	}
	for _, e := range p.Evaluations {
		if k, ok := want[e.Name]; ok && e.Key != k {
			t.Errorf("%s: key %s, want %s", e.Name, e.Key, k)
		}
	}
	if tr := p.Evaluations[7].Input.Transfer; tr == nil || *tr != (activities.Transfer{Corpus: "real-dev", Evaluation: bDev}) || !p.Evaluations[7].Input.AwaitTransfer {
		t.Errorf("b on tb transfers %+v", tr)
	}
	if p.Evaluations[2].Key == key(0, 2, nil) {
		t.Error("the key of a transferred evaluation does not name its source")
	}
}

// Without a generated corpus with dev data, a corpus without dev data has
// no default source; transfer_from naming a corpus without dev data gives
// none either. Such an evaluation neither waits nor transfers.
func TestNewPlanWithoutSource(t *testing.T) {
	in, plans := planInput()
	plans[0].Kind = "ami"                    // sim is no longer a default source
	in.Spec.Corpora[3].TransferFrom = "real" // a corpus without dev data
	p := NewPlan(in, plans)
	for _, i := range []int{2, 3, 6, 7} {
		e := p.Evaluations[i]
		if e.Source != -1 || e.Input.Transfer != nil || e.Input.AwaitTransfer {
			t.Errorf("%s: source %d, transfer %+v, await %v", e.Name, e.Source, e.Input.Transfer, e.Input.AwaitTransfer)
		}
	}
	if len(p.Audits) != 0 {
		t.Errorf("audits %+v of corpora that are not generated", p.Audits)
	}
}

// A corpus is planned from the store when it has a prefix, ingested when
// it is a folder, planned from its preset when generated; a generated
// corpus not yet stored is made one conversation per activity.
func TestCorpusPlanningAndGeneration(t *testing.T) {
	gen := &spec.Generate{Preset: "tiny", Seed: 3}
	for _, c := range []struct {
		src  sweep.CorpusSource
		want CorpusPlanning
	}{
		{sweep.CorpusSource{Name: "s", Prefix: "corpora/x", Dir: "/d"}, CorpusPlanning{Stored: &activities.PlanStoredInput{Name: "s", Prefix: "corpora/x"}}},
		{sweep.CorpusSource{Name: "l", Dir: "/d"}, CorpusPlanning{Ingest: &activities.IngestInput{Name: "l", Dir: "/d"}}},
		{sweep.CorpusSource{Name: "g", Generate: gen}, CorpusPlanning{Generated: &activities.PlanGeneratedInput{Name: "g", Preset: "tiny", Seed: 3}}},
	} {
		if got := Planning(c.src); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: planning %+v, want %+v", c.src.Name, got, c.want)
		}
	}
	plan := activities.CorpusPlan{Name: "g", Prefix: "corpora/g", Preset: "tiny", Seed: 3, Conversations: []string{"c1", "c2"}}
	want := []activities.GenerateInput{{Prefix: "corpora/g", Preset: "tiny", Seed: 3, Conversation: "c1"}, {Prefix: "corpora/g", Preset: "tiny", Seed: 3, Conversation: "c2"}}
	if got := Generation(plan); !reflect.DeepEqual(got, want) {
		t.Errorf("generation %+v", got)
	}
	plan.Ready = true
	if got := Generation(plan); len(got) != 0 {
		t.Errorf("a stored corpus is generated again: %+v", got)
	}
}
