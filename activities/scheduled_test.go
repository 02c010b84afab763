package activities_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/sweep/sweepfixture"
)

// A scheduled run resolves its stored spec when it starts: a system spec
// file edited between two runs gives the second run another system hash,
// the corpus is uploaded under its manifest's hash, and a spec or a path
// that does not resolve is bad input, named, and not retried.
func TestResolveScheduledReadsTheSpecWhenTheRunStarts(t *testing.T) {
	ctx := context.Background()
	specYAML, dirs := sweepfixture.Spec(t)
	system := filepath.Join(t.TempDir(), "ep.yaml")
	writeSystem := func(params string) {
		t.Helper()
		if err := os.WriteFile(system, []byte("family: rms-endpointer\n"+params), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	specYAML = strings.Replace(specYAML, "  - {name: webrtcvad, builtin: webrtcvad, params: {mode: \"3\"}}\n", "  - {name: ep, spec: "+system+"}\n", 1)
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const key = "specs/nightly.yaml"
	if err := store.PutBytes(ctx, st, key, []byte(specYAML)); err != nil {
		t.Fatal(err)
	}
	resolver := (&activities.Activities{Store: st, ScheduleRoot: filepath.Dir(t.TempDir())})
	resolve := func() (sweep.Input, error) {
		return resolver.ResolveScheduled(ctx, sweep.ResolveScheduledInput{SpecKey: key})
	}

	writeSystem("")
	first, err := resolve()
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range first.Corpora {
		if c.Dir != "" || c.Hash != sweepfixture.ManifestHash(t, dirs[i]) || c.Prefix != keys.Corpus(c.Hash) {
			t.Errorf("corpus %+v: want it uploaded under %s", c, keys.Corpus(sweepfixture.ManifestHash(t, dirs[i])))
		}
	}
	if len(first.Systems) != 2 || first.Systems[1].Name != "ep" || first.Systems[1].Dir != "" {
		t.Fatalf("systems %+v", first.Systems)
	}
	writeSystem("params: {threshold_db: \"-25\"}\n")
	second, err := resolve()
	if err != nil {
		t.Fatal(err)
	}
	if second.Systems[1].Hash == first.Systems[1].Hash || second.Systems[0].Hash != first.Systems[0].Hash {
		t.Errorf("after editing ep.yaml: hashes %s, %s; before %s, %s",
			second.Systems[0].Hash, second.Systems[1].Hash, first.Systems[0].Hash, first.Systems[1].Hash)
	}

	badInput := func(what, want string) {
		t.Helper()
		_, err := resolve()
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || app.Type() != sweep.BadInput || !app.NonRetryable() || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want a non-retryable BadInput naming %q", what, err, want)
		}
	}
	if err := os.Remove(system); err != nil {
		t.Fatal(err)
	}
	badInput("a deleted system spec", system)
	writeSystem("")
	if err := store.PutBytes(ctx, st, key, []byte("name: [broken")); err != nil {
		t.Fatal(err)
	}
	badInput("a malformed spec", key)
	if err := os.Remove(filepath.Join(st.Root(), key)); err != nil {
		t.Fatal(err)
	}
	badInput("a spec not in the store", key)
}
