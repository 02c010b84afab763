package generate

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/floorbench/floorbench/internal/synth"
	"github.com/floorbench/floorbench/internal/testenv"
)

var (
	tinyOnce sync.Once
	tinyDir  string
	tinyErr  error
	tmpRoot  string
)

func TestMain(m *testing.M) {
	var err error
	if tmpRoot, err = os.MkdirTemp("", "floorbench-corpus-test-"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(tmpRoot)
	os.Exit(code)
}

// engines returns the real TTS engines, skipping the test without them
// (failing under FLOORBENCH_REQUIRE_TOOLS=1, as scripts/test.sh sets).
func engines(t testing.TB) map[string]synth.TTS {
	t.Helper()
	e, err := synth.NewTTS("")
	if err != nil {
		if testenv.Required() {
			t.Fatalf("%v", err)
		}
		t.Skipf("%v; skipping (set FLOORBENCH_REQUIRE_TOOLS=1 to fail instead)", err)
	}
	return e
}

// tiny returns a tiny-preset corpus (seed 1, two jobs) generated once for
// all tests. Tests must not modify it; copy it first.
func tiny(t *testing.T) string {
	t.Helper()
	e := engines(t)
	tinyOnce.Do(func() {
		tinyDir = tmpRoot + "/tiny"
		_, tinyErr = Corpus(context.Background(), Options{Preset: "tiny", Seed: 1, Out: tinyDir, Jobs: 2, Engines: e})
	})
	if tinyErr != nil {
		t.Fatal(tinyErr)
	}
	return tinyDir
}
