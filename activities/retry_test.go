package activities

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/synth"
	"github.com/floorbench/floorbench/internal/testenv"
)

// retryAttempts is how many attempts the retry tests allow an activity.
const retryAttempts = 3

// runRetried runs one activity with up to retryAttempts attempts.
func runRetried(ctx workflow.Context, name string, in any) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Millisecond, BackoffCoefficient: 1,
			MaximumAttempts: retryAttempts},
	})
	return workflow.ExecuteActivity(ctx, name, in).Get(ctx, nil)
}

// attempts runs activity name of a under the SDK's test environment with
// retries allowed, and returns how often it was started and its error.
func attempts(t *testing.T, a *Activities, name string, in any) (int, error) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute)
	env.RegisterWorkflow(runRetried)
	env.RegisterActivity(a)
	var started atomic.Int32
	env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) { started.Add(1) })
	env.ExecuteWorkflow(runRetried, name, in)
	if !env.IsWorkflowCompleted() {
		t.Fatalf("%s: the workflow did not complete", name)
	}
	return int(started.Load()), env.GetWorkflowError()
}

// Under Temporal, bad input fails an activity on its first attempt, with
// the message and the BadInput type; a missing object (which another
// activity may yet store) is retried up to the policy's limit.
func TestBadInputIsNotRetried(t *testing.T) {
	a, _ := localActivities(t)
	ref, _ := rmsSystem(t)
	for _, c := range []struct {
		name string
		in   any
		says string
	}{
		{"PlanStored", PlanStoredInput{Name: "gone", Prefix: "corpora/none"}, "corpus gone: "},
		{"PlanGenerated", PlanGeneratedInput{Name: "x", Preset: "huge"}, `unknown preset "huge"`},
		{"Infer", InferInput{System: sweep.SystemRef{Name: "broken", YAML: []byte("family: nope\n"), Hash: "h"}, Corpus: CorpusPlan{Hash: "c"}, Conversations: []string{"a"}}, "system broken: "},
	} {
		n, err := attempts(t, a, c.name, c.in)
		var app *temporal.ApplicationError
		if n != 1 || !errors.As(err, &app) || app.Type() != sweep.BadInput || !app.NonRetryable() || !strings.Contains(app.Message(), c.says) {
			t.Errorf("%s: %d attempts, %v; want 1 attempt failing with BadInput %q", c.name, n, err, c.says)
		}
	}
	n, err := attempts(t, a, "Infer", InferInput{System: ref, Corpus: CorpusPlan{Name: "c", Prefix: "corpora/none", Hash: "none"}, Conversations: []string{"a"}})
	var app *temporal.ApplicationError
	if n != retryAttempts || !errors.As(err, &app) || app.NonRetryable() || IsBadInput(err) {
		t.Errorf("Infer of a corpus not yet stored: %d attempts, %v; want %d retryable ones", n, err, retryAttempts)
	}
}

// GenerateConversation synthesises one tiny conversation with the real
// engines and stores its channels, event log and labels, its entry last;
// every stored file has the sha256 the entry records. Run again it stores
// nothing.
func TestGenerateConversationStoresEntryLast(t *testing.T) {
	engines, err := synth.NewTTS("")
	if err != nil {
		if testenv.Required() {
			t.Fatal(err)
		}
		t.Skipf("%v; skipping (set FLOORBENCH_REQUIRE_TOOLS=1 to fail instead)", err)
	}
	ctx := context.Background()
	a, rec, local := recording(t)
	a.Engines = engines
	plan, err := a.PlanGenerated(ctx, PlanGeneratedInput{Name: "t", Preset: "tiny", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	id := plan.Conversations[0]
	in := GenerateInput{Prefix: plan.Prefix, Preset: "tiny", Seed: 1, Conversation: id}
	if err := a.GenerateConversation(ctx, in); err != nil {
		t.Fatal(err)
	}
	puts := rec.take()
	entry := keys.Entry(plan.Prefix, id)
	if len(puts) < 2 || puts[len(puts)-1] != entry || slices.Contains(puts[:len(puts)-1], entry) {
		t.Fatalf("puts %q, want the conversation's files, then %s", puts, entry)
	}
	var e corpus.Conversation
	if err := jsonUnmarshal(stored(t, local, entry), &e); err != nil {
		t.Fatal(err)
	}
	if e.ID != id || e.Speakers != 2 || len(e.Files) != len(puts)-1 {
		t.Fatalf("entry %+v for puts %q", e, puts)
	}
	for name, sum := range e.Files {
		if got := sha256Hex([]byte(stored(t, local, keys.MemberFile(plan.Prefix, id, name)))); got != sum {
			t.Errorf("%s: stored sha256 %s, the entry says %s", name, got, sum)
		}
	}
	if err := a.GenerateConversation(ctx, in); err != nil {
		t.Fatal(err)
	}
	if puts := rec.take(); len(puts) != 0 {
		t.Errorf("a generated conversation was generated again: %q", puts)
	}

	// Finalised alone (a plan of this one conversation), it is a corpus
	// whose gold loads like any other.
	plan.Conversations = []string{id}
	if err := a.FinalizeCorpus(ctx, FinalizeInput{Plan: plan}); err != nil {
		t.Fatal(err)
	}
	c, err := a.LoadCorpus(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	gold := c.Dev
	if e.Split != "dev" {
		gold = c.Test
	}
	if len(gold.Conversations) != 1 || gold.Conversations[0].ID != id || len(gold.Conversations[0].Task(floor.TaskEOT).Positives) == 0 {
		t.Errorf("gold of the generated conversation: %+v", gold)
	}
	if ok, err := store.Exists(ctx, local, keys.File(plan.Prefix, corpus.ManifestName)); err != nil || !ok {
		t.Errorf("manifest stored: %v, %v", ok, err)
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
