package activities

import (
	"testing"

	"github.com/floorbench/floorbench/internal/audit"
	"github.com/floorbench/floorbench/internal/backend"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/synth"
)

// Each component's version is hashed into the keys of what it produces and
// nothing else: a new generator regenerates corpora (and so everything on
// them) but keeps the scoring's keys on an ingested corpus; a new protocol
// re-evaluates but keeps corpora and tracks; a new audit re-audits only.
// Detector family versions are covered in internal/detect (system hashes).
func TestComponentVersionsInvalidateExactlyTheirOutputs(t *testing.T) {
	gen := GeneratedCorpusHash("mptb", 1, backend.Config{})
	if gen != keys.GeneratedCorpus("mptb", 1, synth.GeneratorVersion, nil) {
		t.Fatal("GeneratedCorpusHash is not keyed by the generator's version")
	}
	if keys.GeneratedCorpus("mptb", 1, synth.GeneratorVersion+1, nil) == gen {
		t.Error("a new generator version keeps the corpus hash")
	}
	if GeneratedCorpusHash("mptb", 2, backend.Config{}) == gen || GeneratedCorpusHash("tiny", 1, backend.Config{}) == gen {
		t.Error("seed or preset do not change the corpus hash")
	}

	in := EvaluateInput{System: sweep.SystemRef{Name: "rms", Hash: "s"}, Corpus: CorpusPlan{Hash: "c"},
		Params: score.DefaultParams(), Resamples: 100, Seed: 1}
	eval := EvaluationKey(in)
	if eval != evaluationKey(in, score.ProtocolVersion) {
		t.Fatal("EvaluationKey is not keyed by the protocol version")
	}
	if evaluationKey(in, score.ProtocolVersion+1) == eval {
		t.Error("a new protocol version keeps the evaluation key")
	}
	if keys.Track("s", "c", "conv", floor.TaskEOT) != keys.Track(in.System.Hash, in.Corpus.Hash, "conv", floor.TaskEOT) {
		t.Error("track keys depend on more than system, corpus, conversation and task")
	}

	ain := AuditInput{Corpus: CorpusPlan{Hash: "c"}, Params: score.DefaultParams(), Resamples: 100, Seed: 1}
	if AuditKey(ain) != auditKey(ain, audit.Version) {
		t.Fatal("AuditKey is not keyed by the audit version")
	}
	if auditKey(ain, audit.Version+1) == AuditKey(ain) {
		t.Error("a new audit version keeps the audit key")
	}
	if evaluationKey(in, score.ProtocolVersion) != eval {
		t.Error("the evaluation key moved with the audit version")
	}
}
