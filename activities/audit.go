package activities

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/audit"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
)

// AuditInput asks for the corpus audit of one stored corpus under the
// sweep's protocol and bootstrap.
type AuditInput struct {
	Corpus    CorpusPlan
	Params    score.Params
	Resamples int
	Seed      uint64
}

// options are the audit's options: the sweep's protocol and bootstrap,
// the audit's defaults for the rest.
func (in AuditInput) options() audit.Options {
	o := audit.DefaultOptions()
	o.Params, o.Resamples, o.Seed = in.Params, in.Resamples, in.Seed
	return o
}

// AuditKey is where a corpus's audit is stored: the corpus hash and a hash
// of every option that determines the audit.
func AuditKey(in AuditInput) string {
	return auditKey(in, audit.Version)
}

// auditKey is AuditKey under a given audit version.
func auditKey(in AuditInput, version int) string {
	return keys.Audit(in.Corpus.Hash, struct {
		V int
		O audit.Options
	}{version, in.options()})
}

// Audit runs the corpus audit (internal/audit) over a stored corpus: its
// manifest, labels and every channel are copied to a scratch folder first.
// It returns the key of the stored report.
func (a *Activities) Audit(ctx context.Context, in AuditInput) (_ string, err error) {
	defer permanent(&err)
	key := AuditKey(in)
	if done, err := store.Exists(ctx, a.Store, key); err != nil || done {
		return key, err
	}
	defer keepAlive(ctx, "auditing")()
	dir, cleanup, err := a.scratch()
	if err != nil {
		return "", err
	}
	defer cleanup()
	if err := a.download(ctx, keys.File(in.Corpus.Prefix, corpus.ManifestName), filepath.Join(dir, corpus.ManifestName)); err != nil {
		return "", err
	}
	c, err := corpus.Open(dir, a.limits())
	if err != nil {
		return "", badInput("corpus %s: %v", in.Corpus.Name, err)
	}
	for _, conv := range c.Manifest.Conversations {
		if conv.Unlabelled {
			continue
		}
		if err := a.fetchFile(ctx, in.Corpus, c, conv, corpus.LabelsName(c.Manifest.Kind)); err != nil {
			return "", err
		}
		if _, err := a.materialise(ctx, in.Corpus, c, conv.ID); err != nil {
			return "", err
		}
	}
	r, err := audit.Run(ctx, dir, in.options(), a.limits())
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return "", badInput("audit of corpus %s: %v", in.Corpus.Name, err)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	return key, store.PutBytes(ctx, a.Store, key, data)
}
