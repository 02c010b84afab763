package config

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/store"
)

// With no S3 endpoint the store is the local folder the config names.
func TestOpenStoreLocal(t *testing.T) {
	dir := t.TempDir()
	st, err := Config{StoreDir: dir}.OpenStore(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	summing, ok := st.(store.Summing)
	if !ok {
		t.Fatalf("store %T: want one that records the sha256 of what it stores", st)
	}
	l, ok := summing.Unwrap().(*store.Local)
	if !ok || l.Root() != dir {
		t.Fatalf("store %s", st.Describe())
	}
	if p := DefaultConfigPath(); !strings.HasSuffix(p, filepath.Join("floorbench", "config.yaml")) {
		t.Errorf("config path %q", p)
	}
}
