package workflows

import (
	"slices"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/sweep"
)

// Plan is what a sweep does once its corpora are planned
// (docs/architecture.md#workflows), as data: every evaluation with its
// inputs, the order in which they complete, the audits and the bundle's
// identity. NewPlan builds it once; SweepWorkflow and inprocess.Run
// execute it, preview.Sweep reads its keys.
type Plan struct {
	// Evaluations are every system on every corpus, system by system:
	// system s on corpus c is Evaluations[s*len(corpora)+c].
	Evaluations []PlannedEvaluation
	// Models are the model stages: one per model hash and corpus, in the
	// order of their first evaluation. Each runs its model once over the
	// corpus for every evaluation that maps its output.
	Models []PlannedModel
	// Order is the evaluations in dependency order: those on corpora with
	// dev data, then those on corpora without, each in index order. A
	// transfer source always has dev data, so it comes before the
	// evaluations that take its thresholds.
	Order []int
	// Audits are the corpus audits, one per generated corpus.
	Audits []activities.AuditInput
	// Meta identifies the bundle.
	Meta bundle.Meta
}

// PlannedEvaluation is one system's evaluation on one corpus.
type PlannedEvaluation struct {
	// Name is its child workflow's name under the sweep.
	Name           string
	System, Corpus int // indexes of sweep.Input.Systems and of the corpus plans
	// Source is the evaluation whose dev operating points it uses (-1:
	// none): the same system's on TransferSources' corpus.
	Source int
	// Input is the evaluation as EvaluationWorkflow takes it, with the
	// corpus's conversations and, where Source >= 0, a Transfer naming
	// the source's planned key.
	Input EvaluationInput
	// Key is where the evaluation is stored (activities.EvaluationKey).
	Key string
	// Model is the model stage whose outputs the evaluation maps
	// (Input.Staged), -1 for a system without one.
	Model int
}

// PlannedModel is one model stage: a model (a system's model hash) over
// one corpus.
type PlannedModel struct {
	// Name is its child workflow's name under the sweep: model-, the
	// first system that runs it, -, the corpus.
	Name  string
	Input ModelStageInput
	// Evaluations map its outputs, in index order.
	Evaluations []int
}

// NewPlan plans the evaluations, audits and bundle of a sweep over the
// corpora plans (plans[i] is in.Corpora[i] planned).
func NewPlan(in sweep.Input, plans []activities.CorpusPlan) Plan {
	s := in.Spec
	p := Plan{Meta: BundleMeta(in, plans)}
	sources := TransferSources(s, plans)
	n := len(plans)
	for i := range len(in.Systems) * n {
		sys, c := in.Systems[i/n], plans[i%n]
		e := PlannedEvaluation{Name: "eval-" + sys.Name + "-" + c.Name, System: i / n, Corpus: i % n, Source: -1, Model: -1,
			Input: EvaluationInput{System: sys, Corpus: c, Queue: queueFor(sys, s.Queues), CPUQueue: s.Queues.CPU,
				Params: s.Params(), Resamples: s.Resamples(), Seed: s.Bootstrap.Seed, Concurrency: s.Concurrency,
				Batch: activities.InferBatch(len(c.Conversations), s.Concurrency)}}
		if src := sources[i%n]; src >= 0 {
			e.Source = i/n*n + src
			e.Input.Transfer, e.Input.AwaitTransfer = &activities.Transfer{Corpus: plans[src].Name}, true
		}
		if sys.ModelHash != "" {
			e.Model, e.Input.Staged = p.modelStage(s, sys, c, i), true
		}
		p.Evaluations = append(p.Evaluations, e)
	}
	for _, dependent := range []bool{false, true} {
		for i, e := range p.Evaluations {
			if plans[e.Corpus].NoDev == dependent {
				p.Order = append(p.Order, i)
			}
		}
	}
	for _, i := range p.Order {
		e := &p.Evaluations[i]
		if e.Source >= 0 {
			e.Input.Transfer.Evaluation = p.Evaluations[e.Source].Key
		}
		e.Key = activities.EvaluationKey(e.Input.Evaluate())
	}
	for _, c := range plans {
		if c.Kind == corpus.KindMPTB {
			p.Audits = append(p.Audits, activities.AuditInput{Corpus: c, Params: s.Params(), Resamples: s.Resamples(), Seed: s.Bootstrap.Seed})
		}
	}
	return p
}

// modelStage is the index of the model stage of evaluation i, of system
// sys on corpus c, adding the stage if no earlier evaluation runs the same
// model on c.
func (p *Plan) modelStage(s spec.Sweep, sys sweep.SystemRef, c activities.CorpusPlan, i int) int {
	for m, pm := range p.Models {
		if pm.Input.System.ModelHash == sys.ModelHash && pm.Input.Corpus.Hash == c.Hash {
			p.Models[m].Evaluations = append(pm.Evaluations, i)
			return m
		}
	}
	p.Models = append(p.Models, PlannedModel{Name: "model-" + sys.Name + "-" + c.Name, Evaluations: []int{i},
		Input: ModelStageInput{System: sys, Corpus: c, Queue: queueFor(sys, s.Queues), CPUQueue: s.Queues.CPU,
			Concurrency: s.Concurrency, Batch: activities.ModelBatch(len(c.Conversations), s.Concurrency)}})
	return len(p.Models) - 1
}

// Dependents are the evaluations that take their thresholds from
// evaluation i, in index order.
func (p Plan) Dependents(i int) []int {
	var out []int
	for j, e := range p.Evaluations {
		if e.Source == i {
			out = append(out, j)
		}
	}
	return out
}

// BundleMeta is what identifies the bundle of a sweep over these corpora.
func BundleMeta(in sweep.Input, plans []activities.CorpusPlan) bundle.Meta {
	canonical, _ := in.Spec.Canonical()
	m := bundle.Meta{Name: in.Spec.Name, SpecHash: in.SpecHash, Spec: canonical, CodeVersion: in.CodeVersion,
		Protocol: in.Spec.Params(), Resamples: in.Spec.Resamples(), Seed: in.Spec.Bootstrap.Seed}
	for _, p := range plans {
		m.Inputs = append(m.Inputs, bundle.InputRef{Kind: "corpus", Name: p.Name, Hash: p.Hash})
	}
	for _, s := range in.Systems {
		m.Inputs = append(m.Inputs, bundle.InputRef{Kind: "system", Name: s.Name, Hash: s.Hash})
	}
	return m
}

// TransferSources gives, per corpus, the corpus whose dev operating points
// it uses when it has none (-1: none, or it has its own): the spec's
// transfer_from, else the first generated corpus with dev data.
func TransferSources(s spec.Sweep, plans []activities.CorpusPlan) []int {
	out := make([]int, len(plans))
	fallback := slices.IndexFunc(plans, func(p activities.CorpusPlan) bool { return p.Kind == corpus.KindMPTB && !p.NoDev })
	for i, p := range plans {
		out[i] = -1
		if !p.NoDev {
			continue
		}
		out[i] = fallback
		if from := s.Corpora[i].TransferFrom; from != "" {
			out[i] = slices.IndexFunc(plans, func(q activities.CorpusPlan) bool { return q.Name == from && !q.NoDev })
		}
	}
	return out
}

// CorpusPlanning is how a corpus source is planned, as data: exactly one
// input is set, naming the activity (PlanStored, IngestLocal or
// PlanGenerated) that makes the corpus plan.
type CorpusPlanning struct {
	Stored    *activities.PlanStoredInput
	Ingest    *activities.IngestInput
	Generated *activities.PlanGeneratedInput
}

// Planning is how the corpus c is planned: a corpus in the store from its
// manifest, a local folder by ingesting it, a generated one from its
// preset.
func Planning(c sweep.CorpusSource) CorpusPlanning {
	switch {
	case c.Prefix != "":
		return CorpusPlanning{Stored: &activities.PlanStoredInput{Name: c.Name, Prefix: c.Prefix}}
	case c.Generate == nil:
		return CorpusPlanning{Ingest: &activities.IngestInput{Name: c.Name, Dir: c.Dir}}
	default:
		return CorpusPlanning{Generated: &activities.PlanGeneratedInput{Name: c.Name, Preset: c.Generate.Preset, Seed: c.Generate.Seed, Backends: c.Generate.Config}}
	}
}

// Generation is what making a planned corpus takes: one
// GenerateConversation per conversation, then FinalizeCorpus; nothing
// when the corpus is stored already (plan.Ready).
func Generation(plan activities.CorpusPlan) []activities.GenerateInput {
	if plan.Ready {
		return nil
	}
	out := make([]activities.GenerateInput, len(plan.Conversations))
	for i, id := range plan.Conversations {
		out[i] = activities.GenerateInput{Prefix: plan.Prefix, Preset: plan.Preset, Seed: plan.Seed, Conversation: id, Backends: plan.Backends}
	}
	return out
}
