package keys

import (
	"testing"

	"github.com/floorbench/floorbench/internal/digest"
)

// Agent evaluations follow the store layout, and a scenario set is named
// by preset, seed and both versions, each of which changes the name.
func TestAgentKeysFollowTheStoreLayout(t *testing.T) {
	identity := struct{ V int }{3}
	idHash := digest.Identity([]byte(`{"V":3}`))
	for _, c := range []struct{ got, want string }{
		{ScenarioSetPrefix("s0"), "scenarios/s0"},
		{Agent(identity), idHash},
		{Trial("a1", "c2", 2, "h3"), "trials/a1/c2/r2-h3"},
		{AgentResult("a1", "s0", identity), "agent-results/a1/s0/" + idHash + ".json"},
		{Seat("a1", "c9", "tiny-01-2p", 2, "h3"), "seats/a1/c9/tiny-01-2p/seat2-h3"},
		{SeatedEvaluation("a1", "c9", identity), "seated-evaluations/a1/c9/" + idHash + ".json"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
	base := ScenarioSet("mptb-agent", 1, 1, 4)
	if base != digest.Identity([]byte("agent-scenarios\x00mptb-agent\x001\x001\x004")) {
		t.Errorf("ScenarioSet %s is not the hash of its identity", base)
	}
	for _, other := range []string{ScenarioSet("tiny-agent", 1, 1, 4), ScenarioSet("mptb-agent", 2, 1, 4),
		ScenarioSet("mptb-agent", 1, 2, 4), ScenarioSet("mptb-agent", 1, 1, 5)} {
		if other == base {
			t.Errorf("a different preset, seed or version keeps the hash %s", base)
		}
	}
}

// Below a prefix a file is named after a slash and a member's files sit
// in a folder named by its id, the layout every reader of a corpus or a
// scenario set follows.
func TestKeysBelowAPrefix(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{File("corpora/c1", "corpus.json"), "corpora/c1/corpus.json"},
		{Member("scenarios/s0", "t1"), "scenarios/s0/t1"},
		{MemberFile("corpora/c1", "tiny-01", "speaker_1.wav"), "corpora/c1/tiny-01/speaker_1.wav"},
		{Entries("corpora/c1"), "corpora/c1/entries/"},
		{Entry("corpora/c1", "tiny-01"), "corpora/c1/entries/tiny-01.json"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}
