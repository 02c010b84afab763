package backend

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/floorbench/floorbench/internal/store"
)

// Stats count what one backend did in a generation.
type Stats struct {
	Cached  atomic.Int64 // outputs found in the cache
	Fetched atomic.Int64 // outputs requested from the endpoint
	// Replaced counts the fetched outputs whose cached bytes did not
	// match their recorded sum (store.Corrupt): requested again and
	// stored over them.
	Replaced atomic.Int64
}

// cache reads and writes one backend's outputs in the store; a key is
// computed at most once at a time in this process.
type cache struct {
	store store.Store
	stats *Stats
	mu    sync.Mutex
	busy  map[string]*sync.Mutex
}

func newCache(st store.Store) *cache {
	return &cache{store: st, stats: &Stats{}, busy: map[string]*sync.Mutex{}}
}

// lock serialises the work on one key.
func (c *cache) lock(key string) func() {
	c.mu.Lock()
	m, ok := c.busy[key]
	if !ok {
		m = &sync.Mutex{}
		c.busy[key] = m
	}
	c.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// get returns the output stored under key, or fetches, stores and
// returns it. A stored output whose bytes do not match the sum recorded
// for it is never used: it is fetched again and replaced, and when the
// endpoint cannot answer the error names the key.
func (c *cache) get(ctx context.Context, key string, fetch func() ([]byte, error)) ([]byte, error) {
	defer c.lock(key)()
	data, err := store.GetBytes(ctx, c.store, key)
	if err == nil {
		c.stats.Cached.Add(1)
		return data, nil
	}
	bad := (*store.Corrupt)(nil)
	if !errors.Is(err, store.ErrNotFound) && !errors.As(err, &bad) {
		return nil, fmt.Errorf("generative cache: %w", err)
	}
	if data, err = fetch(); err != nil {
		if bad != nil {
			return nil, fmt.Errorf("generative cache: %v; requesting it again: %w", bad, err)
		}
		return nil, err
	}
	c.stats.Fetched.Add(1)
	if bad != nil {
		c.stats.Replaced.Add(1)
	}
	if err := store.PutBytes(ctx, c.store, key, data); err != nil {
		return nil, fmt.Errorf("generative cache: %w", err)
	}
	return data, nil
}
