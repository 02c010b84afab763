package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
)

// slowStore is a store whose first JSON read takes longer than the
// heartbeat timeout of the test: a busy or distant object store. One slow
// read is enough: before the activities heartbeated from their start, the
// first read came before any heartbeat.
type slowStore struct {
	store.Store
	delay time.Duration
	slow  *atomic.Bool
}

func (s slowStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if strings.HasSuffix(key, ".json") && s.slow.CompareAndSwap(true, false) {
		time.Sleep(s.delay)
	}
	return s.Store.Get(ctx, key)
}

// testHeartbeatTimeout is long enough that keepAlive's heartbeats (every
// third of it) arrive in time on a loaded machine.
const testHeartbeatTimeout = time.Second

// runActivity runs one activity on the test's heartbeat timeout, once.
func runActivity(ctx workflow.Context, name string, in any) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		HeartbeatTimeout:    testHeartbeatTimeout,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	var out string
	err := workflow.ExecuteActivity(ctx, name, in).Get(ctx, &out)
	return out, err
}

// Activities whose reads outlast the heartbeat timeout (a full corpus and
// many systems on a busy store) complete on their first attempt: they
// heartbeat from start to end, not only around their computation. The
// test environment enforces heartbeat timeouts as the server does.
func TestLongActivitiesHeartbeatWhileTheyRead(t *testing.T) {
	root := t.TempDir()
	if err := auditfixture.Write(filepath.Join(root, "corpora", "x"), auditfixture.Balanced(), 1); err != nil {
		t.Fatal(err)
	}
	local, err := store.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	slow := slowStore{local, 2 * testHeartbeatTimeout, &atomic.Bool{}}
	slow.slow.Store(true)
	a := &Activities{Store: slow, Scratch: t.TempDir()}
	auditIn := AuditInput{Corpus: CorpusPlan{Name: "c", Prefix: "corpora/x", Hash: "x"}, Params: score.DefaultParams(), Resamples: 20, Seed: 1}

	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(5 * time.Minute)
	env.RegisterWorkflow(runActivity)
	env.RegisterActivity(a)
	env.ExecuteWorkflow(runActivity, "Audit", auditIn)
	var key string
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("audit on a slow store: %v", err)
	}
	if err := env.GetWorkflowResult(&key); err != nil || key != AuditKey(auditIn) {
		t.Fatalf("audit key %q, %v", key, err)
	}

	slow.slow.Store(true)
	meta := bundle.Meta{Name: "slow", Protocol: score.DefaultParams(), Resamples: 20, Seed: 1}
	env = s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(5 * time.Minute)
	env.RegisterWorkflow(runActivity)
	env.RegisterActivity(a)
	env.ExecuteWorkflow(runActivity, "Aggregate", AggregateInput{Meta: meta, Audits: []AuditRef{{Corpus: "c", Key: key}}})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("aggregate on a slow store: %v", err)
	}
	id, err := bundle.ID(meta)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := store.Exists(context.Background(), local, keys.Bundle(id, "manifest.json")); err != nil || !ok {
		t.Fatalf("bundle manifest stored: %v, %v", ok, err)
	}
}

// A stored object that does not decode fails its activity at once, naming
// the key: it is content-addressed and written whole, so a retry reads the
// same bytes.
func TestCorruptStoredObjectIsNotRetried(t *testing.T) {
	s, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	key := "evaluations/s/c/e.json"
	if err := store.PutBytes(ctx, s, key, []byte("{truncated")); err != nil {
		t.Fatal(err)
	}
	a := &Activities{Store: s, Scratch: t.TempDir()}
	_, err = a.Aggregate(ctx, AggregateInput{Meta: bundle.Meta{Name: "x"}, Evaluations: []string{key}})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != sweep.Corrupt || !app.NonRetryable() || !strings.Contains(err.Error(), key) {
		t.Fatalf("aggregate over a corrupt evaluation: %v", err)
	}
}

// A system's uploaded file is placed only if its content has the hash its
// key names; anything else is corrupt (not retried), or bad input when the
// key is not an uploaded input at all.
func TestPlaceFilesChecksUploadedContent(t *testing.T) {
	s, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a := &Activities{Store: s, Scratch: t.TempDir()}
	sys, err := detect.ParseSystem([]byte("family: external\nparams: {dir: probs}\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	good := []byte(`{"schema_version": 1}`)
	sum := sha256.Sum256(good)
	key := keys.Input(hex.EncodeToString(sum[:]))
	if err := store.PutBytes(ctx, s, key, good); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := a.placeFiles(ctx, sys, map[string]string{"probs-eot.json": key}, dir); err != nil {
		t.Fatalf("genuine upload: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "probs-eot.json")); string(data) != string(good) {
		t.Fatalf("placed %q", data)
	}
	wrong := keys.Input(strings.Repeat("0", 64))
	if err := store.PutBytes(ctx, s, wrong, good); err != nil {
		t.Fatal(err)
	}
	var app *temporal.ApplicationError
	if err := a.placeFiles(ctx, sys, map[string]string{"probs-eot.json": wrong}, t.TempDir()); !errors.As(err, &app) || app.Type() != sweep.Corrupt || !strings.Contains(err.Error(), wrong) {
		t.Errorf("content under another hash: %v", err)
	}
	if err := a.placeFiles(ctx, sys, map[string]string{"probs-eot.json": "corpora/x/y.json"}, t.TempDir()); !errors.As(err, &app) || app.Type() != sweep.BadInput {
		t.Errorf("a key outside inputs/: %v", err)
	}
}
