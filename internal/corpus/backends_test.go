package corpus

import (
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
)

// A generated corpus's backends and cache keys are read back; a cache key
// outside the generative outputs, or a backend without a model, is
// refused with the field named.
func TestManifestBackendsAndCacheKeys(t *testing.T) {
	t.Parallel()
	with := func(backends, keys string) string {
		return strings.Replace(strings.Replace(manifestSeed, `"conversations"`, `"backends":`+backends+`,"conversations"`, 1),
			`"files"`, `"cache_keys":`+keys+`,"files"`, 1)
	}
	chat := `{"stage":"dialogue","name":"openai-chat","model":"m","params":{"temperature":"0.8"}}`
	key := `"generative/chat/00112233445566778899aabbccddeeff.json"`
	m, err := ParseManifest([]byte(with("["+chat+"]", "["+key+"]")), limits.Default())
	if err != nil || m.Backends[0].Params["temperature"] != "0.8" || m.Conversations[0].CacheKeys[0] != strings.Trim(key, `"`) {
		t.Fatalf("%+v, %v", m, err)
	}
	for _, c := range []struct{ backends, keys, want string }{
		{"[" + chat + "]", `["corpora/x/corpus.json"]`, `conversation 0: cache_keys[0] (not quoted): not a key of a cached generative output`},
		{`[{"stage":"voices","name":"openai-speech"}]`, "[" + key + "]", "backends[0]: stage, name and model are required"},
	} {
		if _, err := ParseManifest([]byte(with(c.backends, c.keys)), limits.Default()); err == nil || err.Error() != c.want {
			t.Errorf("err = %v, want %s", err, c.want)
		}
	}
}
