package activities

import (
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/floorbench/floorbench/internal/sweep"
)

// A store key no store accepts, reaching a worker in an activity's input
// (a corpus hash, a prefix, an evaluation key), fails the activity on its
// first attempt with a BadInput error that names the key: every retry would
// read the same key and fail the same way.
func TestInvalidStoreKeyIsNotRetried(t *testing.T) {
	a, _ := localActivities(t)
	ref, _ := rmsSystem(t)
	for _, c := range []struct {
		name, key string
		in        any
	}{
		{"Infer", "../../etc", InferInput{System: ref, Corpus: CorpusPlan{Name: "c", Prefix: "corpora/x", Hash: "../../etc"}, Conversations: []string{"a"}}},
		{"GenerateConversation", "corpora/../up", GenerateInput{Prefix: "corpora/../up", Preset: "tiny", Seed: 1, Conversation: "c0"}},
		{"Aggregate", "evaluations/has space.json", AggregateInput{Evaluations: []string{"evaluations/has space.json"}}},
		{"LoadCorpus", "corpora//twice", CorpusPlan{Name: "c", Prefix: "corpora//twice", Hash: "h"}},
	} {
		n, err := attempts(t, a, c.name, c.in)
		var app *temporal.ApplicationError
		if n != 1 || !errors.As(err, &app) || app.Type() != sweep.BadInput || !app.NonRetryable() || !strings.Contains(app.Message(), c.key) {
			t.Errorf("%s with key %q: %d attempts, %v; want 1 attempt failing with BadInput naming the key", c.name, c.key, n, err)
		}
	}
}
