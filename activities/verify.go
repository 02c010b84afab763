package activities

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/synth"
)

// StoreProblem is one stored object whose content does not match what
// names it: its manifest's sha256, or the hash in its key.
type StoreProblem struct {
	Key     string `json:"key"`
	Problem string `json:"problem"`
}

func (p StoreProblem) String() string { return p.Key + ": " + p.Problem }

// StoreCheck is VerifyStore's result.
type StoreCheck struct {
	Prefix  string `json:"prefix"`
	Corpora int    `json:"corpora"`
	Objects int    `json:"objects"` // objects read and checked
	// Unfinished lists corpora without a manifest (a generation or an
	// upload under way or abandoned): there is nothing to check them by.
	Unfinished []string       `json:"unfinished"`
	Problems   []StoreProblem `json:"problems"`
}

// VerifyStore checks the stored corpora under prefix ("" for all): each
// corpus.json against the hash its key names (the hash of the manifest,
// or for a generated corpus of its preset, seed and generator), and every
// file the manifest names under prefix, read as a stream, against the
// sha256 it records. A missing file is a problem too. Objects are never
// changed.
func VerifyStore(ctx context.Context, st store.Store, prefix string) (*StoreCheck, error) {
	if prefix == "" {
		prefix = keys.Corpora
	}
	if err := store.CheckPrefix(prefix); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(prefix, keys.Corpora) && !strings.HasPrefix(keys.Corpora, prefix) {
		return nil, fmt.Errorf("prefix %q: only corpora are verified (a prefix under %s)", prefix, keys.Corpora)
	}
	list := prefix
	if strings.HasPrefix(keys.Corpora, prefix) {
		list = keys.Corpora
	}
	listed, err := st.List(ctx, list)
	if err != nil {
		return nil, err
	}
	r := &StoreCheck{Prefix: prefix, Unfinished: []string{}, Problems: []StoreProblem{}}
	var roots []string
	for _, k := range listed {
		hash, _, _ := strings.Cut(strings.TrimPrefix(k, keys.Corpora), "/")
		if root := keys.Corpora + hash; !slices.Contains(roots, root) {
			roots = append(roots, root)
		}
	}
	for _, root := range roots {
		if err := verifyStoredCorpus(ctx, st, root, prefix, r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// verifyStoredCorpus checks the corpus stored under root (corpora/<hash>),
// the objects under prefix only.
func verifyStoredCorpus(ctx context.Context, st store.Store, root, prefix string, r *StoreCheck) error {
	key := root + "/" + corpus.ManifestName
	raw, err := store.GetBytes(ctx, st, key)
	if errors.Is(err, store.ErrNotFound) {
		r.Unfinished = append(r.Unfinished, root)
		return nil
	}
	if err != nil {
		return err
	}
	r.Corpora++
	m, err := corpus.ParseManifest(raw)
	if err != nil {
		r.Problems = append(r.Problems, StoreProblem{key, fmt.Sprintf("not a valid manifest: %v", err)})
		return nil
	}
	if strings.HasPrefix(key, prefix) {
		r.Objects++
		if hash := strings.TrimPrefix(root, keys.Corpora); !manifestHasHash(hash, raw, m) {
			r.Problems = append(r.Problems, StoreProblem{key, fmt.Sprintf("content hash %s, not the %s its key names", keys.Hash(raw), hash)})
		}
	}
	for _, conv := range m.Conversations {
		for _, name := range corpus.FilesOf(m.Kind, conv) {
			key := root + "/" + conv.ID + "/" + name
			if !strings.HasPrefix(key, prefix) {
				continue
			}
			r.Objects++
			problem, err := verifyObject(ctx, st, key, conv, name)
			if err != nil {
				return err
			}
			if problem != "" {
				r.Problems = append(r.Problems, StoreProblem{key, problem})
			}
		}
	}
	return nil
}

// verifyObject reads one corpus file from the store and returns what is
// wrong with it ("" when nothing is).
func verifyObject(ctx context.Context, st store.Store, key string, conv corpus.Conversation, name string) (string, error) {
	obj, err := st.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return "missing (the manifest names it)", nil
	}
	if err != nil {
		return "", err
	}
	defer obj.Close()
	_, err = io.Copy(io.Discard, corpus.Verified(obj, conv.Files[name], corpus.MaxFileSize(conv, name)))
	var bad *corpus.Mismatch
	if errors.As(err, &bad) || errors.Is(err, corpus.ErrTooLarge) {
		return err.Error(), nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", key, err)
	}
	return "", nil
}

// manifestHasHash reports whether hash names a corpus with manifest raw:
// an ingested corpus is named by its manifest's hash, a generated one by
// its preset, seed and the version of the generator that made it.
func manifestHasHash(hash string, raw []byte, m *corpus.Manifest) bool {
	if keys.Hash(raw) == hash {
		return true
	}
	if m.Kind != corpus.KindMPTB || m.Preset == "" {
		return false
	}
	for g := 1; g <= synth.GeneratorVersion; g++ {
		if keys.GeneratedCorpus(m.Preset, m.Seed, g) == hash {
			return true
		}
	}
	return false
}
