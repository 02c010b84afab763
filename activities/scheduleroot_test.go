package activities_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
)

// A scheduled run reads local files only under the worker's schedule
// root, with links resolved: a model swapped for a link to a secret
// outside it, a system spec that is such a link, a corpus outside it, or
// any local path on a worker without a root, is bad input naming the path
// before anything is read or stored; a pipe inside the root is refused
// without waiting on it.
func TestScheduledRunsReadOnlyUnderTheScheduleRoot(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const secret = "root:SECRET-HASH-0123456789:20228:0:99999:7:::"
	secretFile := write(t, outside, "shadow", secret+"\n")
	write(t, outside, "sys.yaml", "family: silero\nmodel: {path: "+secretFile+"}\n")
	write(t, root, "linked-model.yaml", "family: silero\nmodel: {path: model.bin}\n")
	if err := os.Symlink(secretFile, filepath.Join(root, "model.bin")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "sys.yaml"), filepath.Join(root, "linked-spec.yaml")); err != nil {
		t.Fatal(err)
	}
	write(t, root, "fifo-model.yaml", "family: silero\nmodel: {path: fifo.bin}\n")
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.bin"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.NewLocal(filepath.Join(base, "store"))
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(root, specYAML string) error {
		key := "specs/" + strings.Repeat("a", 8) + ".yaml"
		if err := store.PutBytes(ctx, st, key, []byte(specYAML)); err != nil {
			t.Fatal(err)
		}
		_, err := (&activities.Activities{Store: st, ScheduleRoot: root}).
			ResolveScheduled(ctx, sweep.ResolveScheduledInput{SpecKey: key})
		return err
	}
	systemSweep := func(spec string) string {
		return "corpora: [{name: g, generate: {preset: tiny, seed: 1}}]\nsystems: [{name: s, spec: " + spec + "}]\n"
	}
	for _, c := range []struct {
		name, root, sweep, want string
	}{
		{"no root", "", systemSweep(filepath.Join(root, "linked-model.yaml")), "scheduled runs read no local files on this worker (its schedule_root is not set"},
		{"model linked out", root, systemSweep(filepath.Join(root, "linked-model.yaml")), filepath.Join(root, "model.bin") + ": leads to " + secretFile + ", outside the schedule root " + root},
		{"spec linked out", root, systemSweep(filepath.Join(root, "linked-spec.yaml")), "leads to " + filepath.Join(outside, "sys.yaml") + ", outside the schedule root"},
		{"spec outside", root, systemSweep(filepath.Join(outside, "sys.yaml")), filepath.Join(outside, "sys.yaml") + ": outside the schedule root " + root},
		{"corpus outside", root, "corpora: [{name: c, path: " + outside + "}]\nsystems: [{name: r, builtin: rms}]\n", outside + ": outside the schedule root"},
		{"model a pipe", root, systemSweep(filepath.Join(root, "fifo-model.yaml")), filepath.Join(root, "fifo.bin") + ": is a named pipe, not a regular file"},
	} {
		err := resolve(c.root, c.sweep)
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || app.Type() != sweep.BadInput || !app.NonRetryable() || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant a non-retryable BadInput containing %q", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: the error quotes the secret: %v", c.name, err)
		}
	}
	keys, err := st.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if data, err := store.GetBytes(ctx, st, k); err != nil || strings.Contains(string(data), "SECRET") {
			t.Errorf("store object %s holds the secret (%v)", k, err)
		}
	}
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
