// Package activities holds floorbench's Temporal activities: thin adapters
// that load inputs from the store, call a domain package, and save the
// output under a content-addressed key (docs/architecture.md#activities).
// Every activity that computes is idempotent: when its output key exists
// it returns it without recomputing, so retries, resubmissions and a
// restarted worker change nothing. Notify is the exception: it posts to a
// webhook, and a retry after a post the receiver saw posts again.
//
// Beside the activities it holds what runs them or feeds them: Upload,
// which stores a sweep's local corpora and system files before it starts
// (with the IngestLocal activity's code, so it cannot live below this
// package in sweep), and Admission, how many activities one process runs
// at once and against what memory budget.
//
// One file per group of activities. Temporal
// registers the methods of one *Activities value with the worker, and every
// activity shares its store, runtime, limits, memory budget and
// credentials, so they stay one package; the work itself is done by the
// domain packages they call.
package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/floorbench/floorbench/internal/backend"
	"github.com/floorbench/floorbench/internal/credential"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/synth"
	"github.com/floorbench/floorbench/internal/webhook"
)

// Activities holds what the activities need. Methods are registered with
// a worker; the workflows refer to them as (*Activities).Method.
type Activities struct {
	Store   store.Store
	Runtime detect.Runtime
	// Capacity sizes the GPU worker pool on Kubernetes (nil: not on one).
	Capacity Capacity
	// Engines are the TTS engines for generation (nil: espeak-ng and flite).
	Engines map[string]synth.TTS
	// Generative lends the generator's generative backends their API keys
	// and request bounds (nil: no keys, default bounds); their outputs
	// are cached in Store.
	Generative *GenerativeSettings
	// Scratch is where audio is unpacked while an activity runs ("" : the
	// system temp dir).
	Scratch string
	// Memory admits detection and evaluation steps against the worker's
	// memory budget (nil: unbounded).
	Memory *MemoryBudget
	// Credentials finds an agent's credential by the name its spec gives
	// (credential_env); nil reads the environment. Errors name the
	// variable, never a value.
	Credentials func(name string) (credential.Secret, error)
	// ScheduleRoot is the one folder of this machine whose files
	// scheduled runs may read ("": none; docs/operations.md#nightly-schedules).
	ScheduleRoot string
	// Webhooks is what the operator allows the webhooks scheduled runs
	// post to.
	Webhooks webhook.Policy
	// Limits bound what the activities accept: specs, corpora, protocol
	// parameters, the files systems read (the zero Limits:
	// limits.Default). The worker passes its configuration's.
	Limits limits.Limits
	// Log receives what the activities report when called in process
	// (a corrupt stored output computed again); nil discards it. Under
	// Temporal the activity's own logger receives it.
	Log *slog.Logger
}

// limits is the bounds in force for a's activities. A nil a, through
// which a workflow names an activity a worker did not register, has the
// defaults.
func (a *Activities) limits() limits.Limits {
	if a == nil {
		return limits.Default()
	}
	return a.Limits.OrDefault()
}

// GenerativeSettings are what the worker lends the generative backends.
type GenerativeSettings struct {
	Secrets    backend.Secrets
	Operations backend.Operations

	mu     sync.Mutex
	opened map[string]*backend.Opened // by configuration, so each endpoint's bound holds across activities
}

// generativeBackends opens the backends of c once per worker.
func (a *Activities) generativeBackends(c backend.Config) (*backend.Opened, error) {
	g := a.Generative
	if g == nil {
		return backend.Open(c, backend.Secrets{}, backend.Operations{Limits: a.limits()}, a.Store, a.Engines)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	id, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	if o, ok := g.opened[string(id)]; ok {
		return o, nil
	}
	ops := g.Operations
	ops.Limits = a.limits()
	o, err := backend.Open(c, g.Secrets, ops, a.Store, a.Engines)
	if err != nil {
		return nil, err
	}
	if g.opened == nil {
		g.opened = map[string]*backend.Opened{}
	}
	g.opened[string(id)] = o
	return o, nil
}

// runtime is a.Runtime bounded by a's limits, keeping endpoints' answers
// in the store.
func (a *Activities) runtime() detect.Runtime {
	rt := a.Runtime
	rt.Limits = a.limits()
	rt.Answers = storedAnswers{a.Store}
	return rt
}

// scratch makes a private working folder removed by the returned func.
func (a *Activities) scratch() (string, func(), error) {
	dir, err := os.MkdirTemp(a.Scratch, "floorbench-activity-")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// heartbeat records progress when running under Temporal (activities are
// also called directly, in process).
func heartbeat(ctx context.Context, details ...any) {
	if activity.IsActivity(ctx) {
		activity.RecordHeartbeat(ctx, details...)
	}
}

// keepAlive heartbeats every third of the heartbeat timeout while a long
// step (synthesis, detection, evaluation) runs, until the returned stop is
// called: a step longer than the timeout stays alive, and a short one
// sends no heartbeat at all (each is a write on the server).
func keepAlive(ctx context.Context, details ...any) (stop func()) {
	if !activity.IsActivity(ctx) || activity.GetInfo(ctx).HeartbeatTimeout <= 0 {
		return func() {}
	}
	t := time.NewTicker(activity.GetInfo(ctx).HeartbeatTimeout / 3)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-t.C:
				activity.RecordHeartbeat(ctx, details...)
			case <-done:
				return
			}
		}
	}()
	return func() {
		t.Stop()
		close(done)
	}
}

// badInput marks an error that retrying cannot fix: Temporal fails the
// activity at once with the message.
func badInput(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return temporal.NewNonRetryableApplicationError(err.Error(), sweep.BadInput, err)
}

// corrupt is the failure of a stored object that does not decode or does
// not match its sum (store.Corrupt): it was written whole (puts are
// atomic), so retrying reads the same bytes; the activity fails at once,
// naming the key.
func corrupt(key string, err error) error {
	msg := fmt.Sprintf("stored object %s is corrupt: %v", key, err)
	if bad := (*store.Corrupt)(nil); errors.As(err, &bad) {
		msg = err.Error() // it names the key and both sums
	}
	return temporal.NewNonRetryableApplicationError(msg, sweep.Corrupt, err)
}

// IsBadInput reports whether err (or its cause) is a bad-input failure.
func IsBadInput(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == sweep.BadInput
}

// permanent turns the store failures that every attempt meets the same
// way into non-retryable ones naming the key: a key that no store accepts
// (store.ErrInvalidKey: a hash, prefix or key of the input that is not one
// the workflows make) is bad input, and an object whose bytes do not
// match its sum (store.Corrupt) is corrupt. Deferred by the sweep's
// activities that reach the store (the nightly ones take their keys from
// the schedule's own workflow, not from a user's input).
func permanent(err *error) {
	if _, ok := (*err).(*temporal.ApplicationError); ok || *err == nil {
		return
	}
	if bad := (*store.Corrupt)(nil); errors.As(*err, &bad) {
		*err = corrupt(bad.Key, *err)
	} else if errors.Is(*err, store.ErrInvalidKey) {
		*err = temporal.NewNonRetryableApplicationError((*err).Error(), sweep.BadInput, *err)
	}
}
