package bundle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
)

// ErrUndecodable marks a bundle file that is stored but is not the JSON
// it should be: written whole and never rewritten, so reading it again
// gives the same bytes.
var ErrUndecodable = errors.New("does not decode")

// Stored reports whether bundle id is complete in st: its manifest,
// written last, is there.
func Stored(ctx context.Context, st store.Store, id string) (bool, error) {
	return store.Exists(ctx, st, keys.BundleManifest(id))
}

// ReadManifest reads bundle id's manifest.json.
func ReadManifest(ctx context.Context, st store.Store, id string) (*Manifest, error) {
	var m Manifest
	if err := readJSON(ctx, st, id, keys.BundleManifest(id), &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// ReadResults reads bundle id's results.json.
func ReadResults(ctx context.Context, st store.Store, id string) (*Results, error) {
	var r Results
	if err := readJSON(ctx, st, id, keys.BundleResults(id), &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// List reads the manifest of every complete bundle in st, newest first
// (by creation time).
func List(ctx context.Context, st store.Store) ([]*Manifest, error) {
	stored, err := st.List(ctx, keys.Bundles)
	if err != nil {
		return nil, err
	}
	var out []*Manifest
	for _, k := range stored {
		id, ok := keys.BundleOfManifest(k)
		if !ok {
			continue
		}
		m, err := ReadManifest(ctx, st, id)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(a, b *Manifest) int { return strings.Compare(b.Created, a.Created) })
	return out, nil
}

// readJSON decodes the file of bundle id under key into v; the error names
// the bundle and the file, and wraps the store's error or ErrUndecodable.
func readJSON(ctx context.Context, st store.Store, id, key string, v any) error {
	name := strings.TrimPrefix(key, keys.Bundle(id, ""))
	data, err := store.GetBytes(ctx, st, key)
	if err != nil {
		return fmt.Errorf("bundle %s: %w", id, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("bundle %s: %s %w: %v", id, name, ErrUndecodable, err)
	}
	return nil
}
