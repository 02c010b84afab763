package activities

import (
	"context"
	"encoding/json"
	"time"

	"github.com/floorbench/floorbench/internal/audit"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
)

// AggregateInput asks for a bundle from stored evaluations and corpus
// audits.
type AggregateInput struct {
	Meta        bundle.Meta
	Evaluations []string // keys
	Audits      []AuditRef
	// Agents are the keys of the agents' stored results (ScoreAgent).
	Agents []string
	// Seated are the seated agents' outcomes on their corpora
	// (EvaluateSeated), in the sweep's order.
	Seated []SeatedOutcome `json:",omitempty"`
}

// AuditRef is a stored corpus audit and the corpus it is of.
type AuditRef struct {
	Corpus string
	Key    string
}

// Aggregate builds the bundle (bundle.Build) and stores its files under
// bundles/<id>/, manifest.json last. Bundles are immutable: when the
// manifest exists and every file matches its recorded sum the bundle is
// returned as it is; a bundle with a corrupt file is built again over it.
func (a *Activities) Aggregate(ctx context.Context, in AggregateInput) (_ string, err error) {
	defer permanent(&err)
	id, err := bundle.ID(in.Meta)
	if err != nil {
		return "", err
	}
	if done, err := a.bundleSound(ctx, id); err != nil || done {
		return id, err
	}
	defer keepAlive(ctx, "aggregating")()
	var evals []evaluate.Evaluation
	for _, key := range in.Evaluations {
		data, err := store.GetBytes(ctx, a.Store, key)
		if err != nil {
			return "", err
		}
		var e evaluate.Evaluation
		if err := json.Unmarshal(data, &e); err != nil {
			return "", corrupt(key, err)
		}
		evals = append(evals, e)
	}
	if err := nameEvaluations(in.Meta, evals); err != nil {
		return "", err
	}
	audits := map[string]*audit.Report{}
	for _, ref := range in.Audits {
		data, err := store.GetBytes(ctx, a.Store, ref.Key)
		if err != nil {
			return "", err
		}
		var r audit.Report
		if err := json.Unmarshal(data, &r); err != nil {
			return "", corrupt(ref.Key, err)
		}
		audits[ref.Corpus] = &r
	}
	agents, err := a.agentResults(ctx, in)
	if err != nil {
		return "", err
	}
	parts := bundle.Parts{Evaluations: evals, Audits: audits, Agents: agents}
	if err := a.addSeated(ctx, in.Seated, &parts); err != nil {
		return "", err
	}
	files, _, err := bundle.Build(in.Meta, parts, time.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return "", err
	}
	// manifest.json is files[0]: store it after everything else.
	for _, f := range append(files[1:], files[0]) {
		if err := store.PutBytes(ctx, a.Store, keys.Bundle(id, f.Name), f.Data); err != nil {
			return "", err
		}
	}
	return id, nil
}

// bundleSound reports whether bundle id is stored whole (its manifest,
// stored last, is there) and every file of it is sound (reusable).
func (a *Activities) bundleSound(ctx context.Context, id string) (bool, error) {
	if done, err := bundle.Stored(ctx, a.Store, id); err != nil || !done {
		return false, err
	}
	files, err := a.Store.List(ctx, keys.Bundle(id, ""))
	if err != nil {
		return false, err
	}
	for _, key := range files {
		if ok, err := a.reusable(ctx, key); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// addSeated adds the seated agents' runs and their stored evaluations,
// each named as this sweep names the agent and the corpus (evaluations
// are stored by content).
func (a *Activities) addSeated(ctx context.Context, outcomes []SeatedOutcome, parts *bundle.Parts) error {
	for _, o := range outcomes {
		parts.Seated = append(parts.Seated, o.Run)
		if o.Key == "" {
			continue
		}
		data, err := store.GetBytes(ctx, a.Store, o.Key)
		if err != nil {
			return err
		}
		var e evaluate.Evaluation
		if err := json.Unmarshal(data, &e); err != nil {
			return corrupt(o.Key, err)
		}
		e.System, e.Corpus = o.Run.Agent, o.Run.Corpus
		if e.CorpusInfo != nil {
			e.CorpusInfo.Name = o.Run.Corpus
		}
		parts.Evaluations = append(parts.Evaluations, e)
	}
	return nil
}

// nameEvaluations gives each evaluation the names this sweep gives its
// system and corpus. Evaluations are stored by content (system and corpus
// hashes, never names), so one computed by another sweep, where the same
// system or corpus was named otherwise, is reused under the names it was
// stored with; the bundle must show this sweep's. Evaluation i is system
// i/n on corpus i%n of the meta's inputs (n corpora), as the sweep lists
// them; a hash that disagrees is a plan that does not match its meta.
// Meta without inputs (tests building bundles by hand) keeps the names.
func nameEvaluations(meta bundle.Meta, evals []evaluate.Evaluation) error {
	if len(meta.Inputs) == 0 {
		return nil
	}
	var corpora, systems []bundle.InputRef
	for _, ref := range meta.Inputs {
		switch ref.Kind {
		case "corpus":
			corpora = append(corpora, ref)
		case "system":
			systems = append(systems, ref)
		}
	}
	n := len(corpora)
	if n == 0 || len(systems)*n != len(evals) {
		return badInput("aggregate: %d evaluations for %d systems on %d corpora", len(evals), len(systems), n)
	}
	for i := range evals {
		sys, c := systems[i/n], corpora[i%n]
		if evals[i].SystemHash != sys.Hash || evals[i].CorpusHash != c.Hash {
			return badInput("aggregate: evaluation %d is of system %s on corpus %s, want %s (%s) on %s (%s)",
				i, evals[i].SystemHash, evals[i].CorpusHash, sys.Name, sys.Hash, c.Name, c.Hash)
		}
		evals[i].System, evals[i].Corpus = sys.Name, c.Name
		if evals[i].CorpusInfo != nil {
			evals[i].CorpusInfo.Name = c.Name
		}
	}
	return nil
}
