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
	defer limits.Set(limits.Current())
	st, err := NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := PutBytes(ctx, st, "bundles/x/results.json", []byte(strings.Repeat(" ", 100))); err != nil {
		t.Fatal(err)
	}
	l := limits.Default()
	l.InputBytes = 100
	limits.Set(l)
	if data, err := GetBytes(ctx, st, "bundles/x/results.json"); err != nil || len(data) != 100 {
		t.Fatalf("at the limit: %d bytes, %v", len(data), err)
	}
	l.InputBytes = 99
	limits.Set(l)
	var over *limits.OverError
	if _, err := GetBytes(ctx, st, "bundles/x/results.json"); !errors.As(err, &over) || over.Field != "bundles/x/results.json" {
		t.Fatalf("past the limit: %v", err)
	}
}
