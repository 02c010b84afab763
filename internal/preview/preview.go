package preview

import (
	"context"
	"fmt"
	"strings"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/workflows"
)

// Preview is what submitting a resolved sweep would do: its identity, and
// for each corpus, evaluation and the bundle whether the store already
// holds it (a sweep reuses what is stored and computes the rest).
type Preview struct {
	WorkflowID  string              `json:"workflow_id"`
	SpecHash    string              `json:"spec_hash"`
	Corpora     []CorpusPreview     `json:"corpora"`
	Systems     []SystemPreview     `json:"systems"`
	Evaluations []EvaluationPreview `json:"evaluations"`
	Agents      []AgentPreview      `json:"agents,omitempty"`
	Seated      []SeatedPreview     `json:"seated,omitempty"`
	Bundle      BundlePreview       `json:"bundle"`
}

// CorpusPreview is one corpus of a sweep. Conversations is 0 for a
// generated corpus not yet stored (its plan is made by the sweep).
type CorpusPreview struct {
	Name          string `json:"name"`
	Source        string `json:"source"` // generate, path or s3
	Hash          string `json:"hash"`
	Conversations int    `json:"conversations"`
	Stored        bool   `json:"stored"`
}

// SystemPreview is one system and its content hash.
type SystemPreview struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
}

// EvaluationPreview is one system's evaluation on one corpus.
type EvaluationPreview struct {
	System string `json:"system"`
	Corpus string `json:"corpus"`
	Key    string `json:"key"`
	Stored bool   `json:"stored"`
}

// BundlePreview is the bundle the sweep would produce.
type BundlePreview struct {
	ID     string `json:"bundle_id"`
	Stored bool   `json:"stored"`
}

// Sweep works out, from a resolved sweep and the store alone (no
// Temporal, nothing written), the keys the sweep would compute and which
// of them are stored: the corpus plans, and the evaluation keys and
// bundle id of the plan the sweep executes (workflows.NewPlan).
func Sweep(ctx context.Context, st store.Store, in sweep.Input, lim limits.Limits) (Preview, error) {
	id, err := in.Spec.WorkflowID()
	if err != nil {
		return Preview{}, err
	}
	pv := Preview{WorkflowID: id, SpecHash: in.SpecHash}
	plans := make([]activities.CorpusPlan, len(in.Corpora))
	manifests := make([]*corpus.Manifest, len(in.Corpora))
	for i, src := range in.Corpora {
		plan, c, m, err := previewCorpus(ctx, st, src, lim)
		if err != nil {
			return pv, fmt.Errorf("corpora[%d] (%s): %w", i, src.Name, err)
		}
		plans[i], manifests[i] = plan, m
		pv.Corpora = append(pv.Corpora, c)
	}
	for _, s := range in.Systems {
		pv.Systems = append(pv.Systems, SystemPreview{Name: s.Name, Hash: s.Hash})
	}
	plan := workflows.NewPlan(in, plans)
	for _, e := range plan.Evaluations {
		stored, err := store.Exists(ctx, st, e.Key)
		if err != nil {
			return pv, err
		}
		pv.Evaluations = append(pv.Evaluations, EvaluationPreview{System: in.Systems[e.System].Name, Corpus: plans[e.Corpus].Name, Key: e.Key, Stored: stored})
	}
	for i, a := range in.Spec.Agents {
		if a.HasTrials() {
			ap, err := previewAgent(ctx, st, a)
			if err != nil {
				return pv, fmt.Errorf("agents[%d] (%s): %w", i, a.Name, err)
			}
			pv.Agents = append(pv.Agents, ap)
		}
		if a.Seated != nil {
			sp, err := previewSeated(ctx, st, in.Spec, a, plans, manifests)
			if err != nil {
				return pv, fmt.Errorf("agents[%d] (%s).seated: %w", i, a.Name, err)
			}
			pv.Seated = append(pv.Seated, sp)
		}
	}
	if pv.Bundle.ID, err = bundle.ID(plan.Meta); err != nil {
		return pv, err
	}
	pv.Bundle.Stored, err = bundle.Stored(ctx, st, pv.Bundle.ID)
	return pv, err
}

// previewCorpus is the plan the sweep would make of a corpus (as
// activities.PlanStored makes it from the manifest), as far as it can be
// known without generating anything, and its manifest (nil for a
// generated corpus not stored yet).
func previewCorpus(ctx context.Context, st store.Store, src sweep.CorpusSource, lim limits.Limits) (activities.CorpusPlan, CorpusPreview, *corpus.Manifest, error) {
	var raw []byte
	var err error
	c := CorpusPreview{Name: src.Name}
	switch {
	case src.Generate != nil:
		c.Source, c.Hash = "generate", activities.GeneratedCorpusHash(src.Generate.Preset, src.Generate.Seed, src.Generate.Config)
		raw, err = storedManifest(ctx, st, keys.Corpus(c.Hash))
		if err != nil {
			return activities.CorpusPlan{}, c, nil, err
		}
		if raw == nil {
			plan := activities.CorpusPlan{Name: src.Name, Prefix: keys.Corpus(c.Hash), Hash: c.Hash,
				Preset: src.Generate.Preset, Seed: src.Generate.Seed, Kind: corpus.KindMPTB, Backends: src.Generate.Config}
			return plan, c, nil, nil
		}
		c.Stored = true
	case src.Dir != "":
		c.Source = "path"
		if _, raw, err = corpus.ReadManifestRaw(src.Dir, lim); err != nil {
			return activities.CorpusPlan{}, c, nil, err
		}
		c.Hash = digest.Identity(raw)
		c.Stored, err = store.Exists(ctx, st, keys.File(keys.Corpus(c.Hash), corpus.ManifestName))
		if err != nil {
			return activities.CorpusPlan{}, c, nil, err
		}
	default:
		c.Source = "s3"
		prefix := strings.TrimSuffix(src.Prefix, "/")
		if raw, err = storedManifest(ctx, st, prefix); err != nil {
			return activities.CorpusPlan{}, c, nil, err
		}
		if raw == nil {
			return activities.CorpusPlan{}, c, nil, fmt.Errorf("%s/%s is not in the store", prefix, corpus.ManifestName)
		}
		c.Hash, c.Stored = digest.Identity(raw), true
	}
	m, err := corpus.ParseManifest(raw, lim)
	if err != nil {
		return activities.CorpusPlan{}, c, nil, err
	}
	plan := activities.CorpusPlan{Name: src.Name, Hash: c.Hash, Preset: m.Preset, Seed: m.Seed, Kind: m.Kind, NoDev: true}
	for _, conv := range m.Conversations {
		plan.Conversations = append(plan.Conversations, conv.ID)
		if conv.Split == "dev" && !conv.Unlabelled {
			plan.NoDev = false
		}
	}
	c.Conversations = len(plan.Conversations)
	return plan, c, m, nil
}

// storedManifest is the corpus manifest under prefix, or nil when the
// store has none.
func storedManifest(ctx context.Context, st store.Store, prefix string) ([]byte, error) {
	key := keys.File(prefix, corpus.ManifestName)
	ok, err := store.Exists(ctx, st, key)
	if err != nil || !ok {
		return nil, err
	}
	return store.GetBytes(ctx, st, key)
}
