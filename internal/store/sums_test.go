package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/store"
)

// failingPut is a store whose puts of one key fail, as when a worker is
// killed between two writes.
type failingPut struct {
	store.Store
	key string
}

func (f failingPut) Put(ctx context.Context, key string, r io.Reader) error {
	if key == f.key {
		return errors.New("killed")
	}
	return f.Store.Put(ctx, key, r)
}

// A summed object is stored with its sha256 beside it, the sum first: an
// object that exists always has its sum, even when the write of the object
// failed after the sum's (its retry finds no object and writes both); a
// stream read once is summed after it is stored.
func TestSummingRecordsTheSHA256OfWhatItStores(t *testing.T) {
	ctx := context.Background()
	local, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	summed := func(k string) bool { return strings.HasPrefix(k, "tracks/") }
	sumKey := func(k string) string { return "sums/" + k }
	st := store.Summing{Store: local, Summed: summed, SumKey: sumKey}
	data := []byte(`{"probs": [0.1, 0.2]}`)
	want := sha256.Sum256(data)
	for _, r := range []io.Reader{bytes.NewReader(data), bytes.NewBuffer(data), io.MultiReader(bytes.NewReader(data))} {
		if err := st.Put(ctx, "tracks/a.json", r); err != nil {
			t.Fatal(err)
		}
		got, err := store.ReadSum(ctx, local, "sums/tracks/a.json")
		if err != nil || got != hex.EncodeToString(want[:]) {
			t.Errorf("%T: sum %q, %v", r, got, err)
		}
	}
	if err := st.Put(ctx, "inputs/x", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if _, err := local.Stat(ctx, "sums/inputs/x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an object not summed got a sum: %v", err)
	}
	killed := store.Summing{Store: failingPut{local, "tracks/b.json"}, Summed: summed, SumKey: sumKey}
	for _, r := range []io.Reader{bytes.NewReader(data), bytes.NewBuffer(data)} {
		if err := killed.Put(ctx, "tracks/b.json", r); err == nil {
			t.Fatal("the failing put succeeded")
		}
		if _, err := local.Stat(ctx, "tracks/b.json"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the object exists after its put failed: %v", err)
		}
		if _, err := local.Stat(ctx, "sums/tracks/b.json"); err != nil {
			t.Errorf("%T: the sum is not written before the object: %v", r, err)
		}
	}
}
