package activities

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
)

// A model output whose bytes no longer match the sum recorded for it (other
// values, in a valid format) is never mapped: MapFloor fails at once,
// naming its key and both sums, and RunModel, finding it corrupt, runs the
// model again and stores the output over it, after which MapFloor maps it.
func TestCorruptModelOutputIsRunAgain(t *testing.T) {
	ctx := context.Background()
	local, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Store: summing(local), Scratch: t.TempDir()}
	plan, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: smallCorpus(t)})
	if err != nil {
		t.Fatal(err)
	}
	ref := systemRef(t, "rms", "rms", a.Runtime, nil)
	batch := ModelInput{System: ref, Corpus: plan, Conversations: plan.Conversations[:1]}
	if res, err := a.RunModel(ctx, batch); err != nil || res.Ran != 1 {
		t.Fatalf("RunModel: %+v, %v", res, err)
	}
	key := keys.ModelOutput(ref.ModelHash, plan.Hash, plan.Conversations[0])
	clean, err := store.GetBytes(ctx, local, key)
	if err != nil {
		t.Fatal(err)
	}
	out, err := detect.ReadModelOutput(bytes.NewReader(clean), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, output := range out.Values {
		for _, track := range output {
			for j := range track {
				track[j] = 1 - track[j]
			}
		}
	}
	var other bytes.Buffer
	if err := detect.WriteModelOutput(&other, out); err != nil {
		t.Fatal(err)
	}
	if err := store.PutBytes(ctx, local, key, other.Bytes()); err != nil { // under the sums
		t.Fatal(err)
	}

	err = a.MapFloor(ctx, FloorInput{System: ref, Corpus: plan, Conversations: batch.Conversations})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != sweep.Corrupt || !app.NonRetryable() {
		t.Fatalf("MapFloor of a changed model output: %v", err)
	}
	assertCorrupt(t, err, key)
	if res, err := a.RunModel(ctx, batch); err != nil || res.Ran != 1 {
		t.Fatalf("RunModel over a changed output: %+v, %v", res, err)
	}
	if got, err := store.GetBytes(ctx, local, key); err != nil || !bytes.Equal(got, clean) {
		t.Fatalf("the output run again differs from the first (%v)", err)
	}
	if err := a.MapFloor(ctx, FloorInput{System: ref, Corpus: plan, Conversations: batch.Conversations}); err != nil {
		t.Fatal(err)
	}
}
