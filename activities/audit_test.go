package activities

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/audit"
	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
)

// The Audit activity audits a stored corpus once: its report is stored
// under a key of the corpus and the options, and a second call returns it
// untouched.
func TestAuditIsStoredOnceUnderItsKey(t *testing.T) {
	root := t.TempDir()
	if err := auditfixture.Write(filepath.Join(root, "corpora", "x"), auditfixture.Shortcut(), 1); err != nil {
		t.Fatal(err)
	}
	s, err := store.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Store: s, Scratch: t.TempDir()}
	in := AuditInput{Corpus: CorpusPlan{Name: "c", Prefix: "corpora/x", Hash: "x"}, Params: score.DefaultParams(), Resamples: 50, Seed: 1}
	ctx := context.Background()
	key, err := a.Audit(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	data, err := store.GetBytes(ctx, s, key)
	if err != nil {
		t.Fatal(err)
	}
	var r audit.Report
	if err := json.Unmarshal(data, &r); err != nil || r.Params.Resamples != 50 || !slices.Contains(r.Tasks[1].Shortcuts, "overlap_run_length") {
		t.Fatalf("stored audit %s: %v", data, err)
	}
	if err := os.WriteFile(filepath.Join(root, key), []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := a.Audit(ctx, in); err != nil || again != key {
		t.Fatalf("second call: %q, %v", again, err)
	}
	if data, _ := store.GetBytes(ctx, s, key); string(data) != "kept" {
		t.Error("the stored audit was recomputed")
	}
	in.Seed = 2
	if AuditKey(in) == key {
		t.Error("another bootstrap seed has the same key")
	}
}
