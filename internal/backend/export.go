package backend

import (
	"context"
	"errors"
	"fmt"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/store"
)

// CacheKeys lists the cache keys a corpus's conversations record, each
// once, in manifest order.
func CacheKeys(m *corpus.Manifest) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range m.Conversations {
		for _, k := range c.CacheKeys {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// ExportCache copies every cached output the corpus was made from out of
// from into to, so that a generation with to as its cache (`--cache DIR`)
// makes no request. A key missing from from is an error naming it, and so
// is one whose bytes do not match the sum from recorded for it
// (store.Corrupt, found as it is read): a changed output is never
// exported, nor a sum of its bytes.
func ExportCache(ctx context.Context, m *corpus.Manifest, from, to store.Store) (int, error) {
	keys := CacheKeys(m)
	for _, k := range keys {
		data, err := store.GetBytes(ctx, from, k)
		if errors.Is(err, store.ErrNotFound) {
			return 0, fmt.Errorf("%s is not in the store the corpus was generated with", k)
		}
		if err != nil {
			return 0, err
		}
		if err := store.PutBytes(ctx, to, k, data); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}
