package sweep

import (
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/spec"
)

// Input is a resolved sweep: the normalised spec with every local corpus
// and system spec replaced by what workers need. SweepWorkflow takes it.
type Input struct {
	Spec     spec.Sweep
	SpecHash string
	Systems  []SystemRef
	// Corpora[i] is how corpus Spec.Corpora[i] is obtained.
	Corpora     []CorpusSource
	CodeVersion string
}

// CorpusSource is one corpus: generated (Generate), ingested from a local
// folder (Dir), or already in the store under Prefix.
type CorpusSource struct {
	Name     string
	Generate *spec.Generate
	Dir      string
	Hash     string // content hash of an ingested corpus
	Prefix   string
}

// SystemRef is a system as the workflows pass it: its spec (a few KB of
// YAML, normalised) and its hash.
type SystemRef struct {
	Name string
	YAML []byte
	// Dir is the folder relative model paths in YAML start from, on the
	// submitting machine; empty once the sweep's inputs are uploaded.
	Dir string
	// Files are the system's uploaded files (detect.System.LocalFiles), by
	// role: store keys under inputs/, which Infer copies to the worker.
	Files map[string]string `json:",omitempty"`
	Hash  string
	// NeedsModel is true for systems that run an ONNX model: they go to
	// the GPU queue.
	NeedsModel bool
	// ModelHash identifies the system's model stage
	// (detect.System.ModelHash; "" for a system without one): systems
	// with the same model hash share its stored outputs.
	ModelHash string `json:",omitempty"`
	// Tasks are the tasks of a system that scores one only
	// (detect.System.Tasks): an EOT-only or INT-only system. Nil for a
	// system of both tasks, so that its input (and the histories that hold
	// it) stays as it was; ScoredTasks reads it.
	Tasks []floor.Task `json:",omitempty"`
}

// ScoredTasks are the tasks the system scores, in floor.Tasks order: its
// Tasks, or both.
func (r SystemRef) ScoredTasks() []floor.Task {
	if r.Tasks == nil {
		return floor.Tasks
	}
	return r.Tasks
}

// Result names the bundle a sweep produced.
type Result struct {
	BundleID string
}

// ResolveScheduledInput names the stored spec a scheduled run resolves
// (activities.ResolveScheduled).
type ResolveScheduledInput struct {
	SpecKey string
}
