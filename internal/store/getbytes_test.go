package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
)

// An object past the input limit is refused, not read into memory.
func TestGetBytesStopsAtTheInputLimit(t *testing.T) {
	t.Parallel()
	local, err := NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := PutBytes(ctx, local, "bundles/x/results.json", []byte(strings.Repeat(" ", 100))); err != nil {
		t.Fatal(err)
	}
	if data, err := GetBytes(ctx, local, "bundles/x/results.json"); err != nil || len(data) != 100 {
		t.Fatalf("under the default limit: %d bytes, %v", len(data), err)
	}
	st := Summing{Store: local.WithReadLimit(100), Summed: func(string) bool { return false }}
	if data, err := GetBytes(ctx, st, "bundles/x/results.json"); err != nil || len(data) != 100 {
		t.Fatalf("at the limit: %d bytes, %v", len(data), err)
	}
	st.Store = local.WithReadLimit(99)
	var over *limits.OverError
	if _, err := GetBytes(ctx, st, "bundles/x/results.json"); !errors.As(err, &over) || over.Field != "bundles/x/results.json" {
		t.Fatalf("past the limit: %v", err)
	}
}
