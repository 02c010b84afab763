package synth

import (
	"testing"

	"github.com/floorbench/floorbench/internal/testenv"
)

// enginesForTest returns the real TTS engines. Without espeak-ng or flite
// the test skips, or fails when FLOORBENCH_REQUIRE_TOOLS=1 (scripts/test.sh).
func enginesForTest(t testing.TB) map[string]TTS {
	t.Helper()
	e, err := NewTTS(t.TempDir())
	if err != nil {
		if testenv.Required() {
			t.Fatalf("%v", err)
		}
		t.Skipf("%v; skipping (set FLOORBENCH_REQUIRE_TOOLS=1 to fail instead)", err)
	}
	return e
}
