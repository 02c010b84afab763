package activities

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
)

// Upload puts what a resolved sweep reads from the submitting machine into
// the store before the sweep starts: local corpora under corpora/<hash>
// (the IngestLocal activity's own path, run here) and the files systems
// name (models, external probability files) under their content hash
// (keys.Input). Objects already stored are skipped. Afterwards
// the input holds store keys only, so workers on any machine that shares
// the store can run it; none reads a path of the submitter.
func Upload(ctx context.Context, st store.Store, in *sweep.Input, rt detect.Runtime) error {
	acts := &Activities{Store: st, Limits: rt.Limits}
	for i := range in.Corpora {
		src := &in.Corpora[i]
		if src.Dir == "" {
			continue
		}
		plan, err := acts.IngestLocal(ctx, IngestInput{Name: src.Name, Dir: src.Dir})
		if err != nil {
			return fmt.Errorf("upload corpus %s: %w", src.Name, err)
		}
		src.Prefix, src.Hash, src.Dir = plan.Prefix, plan.Hash, ""
	}
	for i := range in.Systems {
		ref := &in.Systems[i]
		sys, err := detect.ParseSystem(ref.YAML, ref.Dir)
		if err != nil {
			return fmt.Errorf("system %s: %w", ref.Name, err)
		}
		files := sys.LocalFiles(rt)
		for _, role := range slices.Sorted(maps.Keys(files)) {
			key, err := uploadFile(ctx, st, role, files[role], rt.Limits.OrDefault())
			if err != nil {
				return fmt.Errorf("upload %s of system %s: %w", role, ref.Name, err)
			}
			if ref.Files == nil {
				ref.Files = map[string]string{}
			}
			ref.Files[role] = key
		}
		ref.Dir = ""
	}
	return nil
}

// uploadFile stores the file of a role (see detect.System.LocalFiles)
// under keys.Input of its SHA-256, unless an object is already there. The
// file is opened once, by limits.Open's rule (a model at most
// lim's model_bytes, a probability file its input_bytes), hashed and
// uploaded from the same descriptor: what is stored is what was hashed.
func uploadFile(ctx context.Context, st store.Store, role, path string, lim limits.Limits) (string, error) {
	open := lim.OpenInputFile
	if role == "model" {
		open = lim.OpenModel
	}
	f, err := open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sum, err := digest.SHA256(f, path)
	if err != nil {
		return "", err
	}
	key := keys.Input(sum)
	if done, err := store.Exists(ctx, st, key); err != nil || done {
		return key, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	r, err := corpus.VerifiedFile(f, sum)
	if err != nil {
		return "", err
	}
	return key, st.Put(ctx, key, r)
}
