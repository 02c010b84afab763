package activities_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep/sweepfixture"
)

// An external system's probability files are uploaded under their
// content hash and the input names them by key.
func TestUploadStoresSystemFilesByHash(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	probs := map[string]string{}
	for i, name := range detect.ProbsFileNames {
		task := []floor.Task{floor.TaskEOT, floor.TaskINT}[i]
		content := `{"task": "` + string(task) + `", "frame_rate": 100, "conversations": []}`
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(content))
		probs[name] = keys.Input(hex.EncodeToString(sum[:]))
	}
	sysFile := filepath.Join(dir, "system.yaml")
	if err := os.WriteFile(sysFile, []byte("family: external\nparams: {dir: .}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := sweepfixture.Resolved(t, "name: ext\ncorpora:\n  - {name: t, generate: {preset: tiny, seed: 1}}\nsystems:\n  - {name: ext, spec: "+sysFile+"}\n")
	if in.Systems[0].Dir != dir {
		t.Fatalf("system dir %q", in.Systems[0].Dir)
	}
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := activities.Upload(ctx, st, &in, detect.Runtime{}); err != nil {
		t.Fatal(err)
	}
	ref := in.Systems[0]
	if ref.Dir != "" || len(ref.Files) != 2 {
		t.Fatalf("system after upload %+v", ref)
	}
	for name, key := range probs {
		if ref.Files[name] != key {
			t.Errorf("%s uploaded as %s, want %s", name, ref.Files[name], key)
		}
		data, err := store.GetBytes(ctx, st, key)
		want, _ := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(data) != string(want) {
			t.Errorf("%s: stored %q, %v", key, data, err)
		}
	}
	if in.Corpora[0].Prefix != "" || in.Corpora[0].Generate == nil {
		t.Errorf("a generated corpus was uploaded: %+v", in.Corpora[0])
	}
}
