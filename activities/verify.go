package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
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
	Unfinished []string `json:"unfinished"`
	// Unrecorded lists objects stored without a recorded sha256 (by a
	// floorbench from before it recorded one): they are not checked.
	Unrecorded []string       `json:"unrecorded"`
	Problems   []StoreProblem `json:"problems"`
}

// VerifyStore checks every stored object under prefix ("" for all)
// against what names it (docs/operations.md#limits-and-safety), reading
// each as a stream; objects are never changed:
//
//   - a corpus's corpus.json against the hash its key names (its own
//     content's, or for a generated corpus its recipe's) and, when one was
//     recorded, against its recorded sha256 (keys.Sum); every file its
//     manifest names against the sha256 the manifest records (a missing
//     file is a problem); a generated conversation's entry against its
//     recorded sha256;
//   - an uploaded input (inputs/) and a scheduled spec (specs/) against
//     the SHA-256 their keys name;
//   - every other object (tracks, evaluations, audits, bundles, run
//     records) against its recorded sha256.
//
// lim bounds the corpus manifests read.
func VerifyStore(ctx context.Context, st store.Store, prefix string, lim limits.Limits) (*StoreCheck, error) {
	if err := store.CheckPrefix(prefix); err != nil {
		return nil, err
	}
	if strings.HasPrefix(prefix, keys.Sums) {
		return nil, fmt.Errorf("prefix %q: sums are what objects are checked against, not objects to check", prefix)
	}
	if checked, ok := st.(store.Summing); ok {
		st = checked.Unwrap() // the raw bytes: each mismatch is reported, not failed on
	}
	r := &StoreCheck{Prefix: prefix, Unfinished: []string{}, Unrecorded: []string{}, Problems: []StoreProblem{}}
	listed, err := st.List(ctx, prefix)
	if err != nil {
		return nil, err
	}
	var roots []string
	for _, k := range listed {
		if rest, ok := strings.CutPrefix(k, keys.Corpora); ok {
			hash, _, _ := strings.Cut(rest, "/")
			if root := keys.Corpora + hash; !slices.Contains(roots, root) {
				roots = append(roots, root)
			}
		}
	}
	for _, root := range roots {
		if err := verifyStoredCorpus(ctx, st, root, prefix, r, lim); err != nil {
			return nil, err
		}
	}
	for _, k := range listed {
		if strings.HasPrefix(k, keys.Corpora) || strings.HasPrefix(k, keys.Sums) {
			continue
		}
		if err := verifyNamedObject(ctx, st, k, r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// verifyNamedObject checks an object outside corpora/ against the hash
// its key names or the sha256 recorded for it.
func verifyNamedObject(ctx context.Context, st store.Store, key string, r *StoreCheck) error {
	want, named := keys.Named(key)
	if !named {
		if keys.Summed(key) {
			return verifySummed(ctx, st, key, r)
		}
		return nil
	}
	r.Objects++
	got, err := objectSHA256(ctx, st, key)
	if err != nil {
		return err
	}
	if got != want {
		r.Problems = append(r.Problems, StoreProblem{key, fmt.Sprintf("sha256 %s, not the %s its key names", got, want)})
	}
	return nil
}

// verifySummed checks an object against the sha256 recorded for it; one
// with none recorded is listed as unrecorded.
func verifySummed(ctx context.Context, st store.Store, key string, r *StoreCheck) error {
	want, err := store.ReadSum(ctx, st, keys.Sum(key))
	if errors.Is(err, store.ErrNotFound) {
		r.Unrecorded = append(r.Unrecorded, key)
		return nil
	}
	if err != nil {
		return err
	}
	r.Objects++
	got, err := objectSHA256(ctx, st, key)
	if err != nil {
		return err
	}
	if got != want {
		r.Problems = append(r.Problems, StoreProblem{key, fmt.Sprintf("sha256 %s, the sha256 recorded when it was stored is %s", got, want)})
	}
	return nil
}

// objectSHA256 reads an object as a stream and hashes it.
func objectSHA256(ctx context.Context, st store.Store, key string) (string, error) {
	obj, err := st.Get(ctx, key)
	if err != nil {
		return "", err
	}
	defer obj.Close()
	h := sha256.New()
	if _, err := io.Copy(h, obj); err != nil {
		return "", fmt.Errorf("read %s: %w", key, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// verifyStoredCorpus checks the corpus stored under root (corpora/<hash>),
// the objects under prefix only.
func verifyStoredCorpus(ctx context.Context, st store.Store, root, prefix string, r *StoreCheck, lim limits.Limits) error {
	key := keys.File(root, corpus.ManifestName)
	raw, err := store.GetBytes(ctx, st, key)
	if errors.Is(err, store.ErrNotFound) {
		r.Unfinished = append(r.Unfinished, root)
		return nil
	}
	if err != nil {
		return err
	}
	r.Corpora++
	m, err := corpus.ParseManifest(raw, lim)
	if err != nil {
		r.Problems = append(r.Problems, StoreProblem{key, fmt.Sprintf("not a valid manifest: %v", err)})
		return nil
	}
	if strings.HasPrefix(key, prefix) {
		if err := verifyManifest(ctx, st, root, key, raw, m, r); err != nil {
			return err
		}
	}
	entries, err := st.List(ctx, keys.Entries(root))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e, prefix) {
			if err := verifySummed(ctx, st, e, r); err != nil {
				return err
			}
		}
	}
	for _, conv := range m.Conversations {
		for _, name := range corpus.FilesOf(m.Kind, conv) {
			key := keys.MemberFile(root, conv.ID, name)
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

// verifyManifest checks a corpus.json against the hash its key names and
// the sha256 recorded for it: a generated corpus is named by its recipe,
// which says nothing of its manifest's bytes, so for it the recorded
// sha256 is what catches a change.
func verifyManifest(ctx context.Context, st store.Store, root, key string, raw []byte, m *corpus.Manifest, r *StoreCheck) error {
	if hash := strings.TrimPrefix(root, keys.Corpora); !manifestHasHash(hash, raw, m) {
		r.Objects++
		r.Problems = append(r.Problems, StoreProblem{key, fmt.Sprintf("content hash %s, not the %s its key names", digest.Identity(raw), hash)})
		return nil
	}
	if digest.Identity(raw) == strings.TrimPrefix(root, keys.Corpora) {
		r.Objects++ // named by its content: the key says it all
		return nil
	}
	return verifySummed(ctx, st, key, r)
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
	if digest.Identity(raw) == hash {
		return true
	}
	if m.Kind != corpus.KindMPTB || m.Preset == "" {
		return false
	}
	for g := 1; g <= synth.GeneratorVersion; g++ {
		if keys.GeneratedCorpus(m.Preset, m.Seed, g, backendsIdentity(m.Backends)) == hash {
			return true
		}
	}
	return false
}
