package quickstart

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/devserver"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/temporalclient"
)

// Spec is the sweep the quickstart runs: the tiny generated
// corpus, the three acoustic gates (the papers' baselines) and two of the
// same voice activity detectors as silence-timeout endpointers.
const Spec = `name: quickstart
corpora:
  - name: mptb-tiny
    generate: {preset: tiny, seed: 1}
systems:
  - {name: rms, builtin: rms}
  - {name: webrtcvad, builtin: webrtcvad}
  - {name: silero, builtin: silero}
  - {name: rms-endpointer, builtin: rms-endpointer}
  - {name: silero-endpointer, builtin: silero-endpointer}
bootstrap: {resamples: 1000, seed: 1}
concurrency: 4
`

// Options configure the one-command run.
type Options struct {
	Config config.Config
	// StartTemporal starts a dev server from the pinned CLI instead of
	// using Config.TemporalAddress.
	StartTemporal bool
	Tools         string
	Progress      func(temporalclient.Status)
	// SpecFile, when set, is the sweep spec to run instead of Spec.
	SpecFile string
}

// Run runs the whole job on one machine: a Temporal dev server (the
// pinned binary, unless an address is given), an in-process worker on every
// queue, the store, the quickstart sweep (or the spec file's); it returns the bundle's results
// and where the bundle is, and stops everything it started.
func Run(ctx context.Context, o Options, log io.Writer) (*bundle.Results, string, error) {
	lim := o.Config.Limits.OrDefault()
	s, err := spec.Parse("quickstart spec", []byte(Spec), lim)
	if o.SpecFile != "" {
		s, err = spec.Load(o.SpecFile, lim)
	}
	if err != nil {
		return nil, "", err
	}
	rt := detect.RuntimeFromEnv()
	rt.Limits = lim
	in, err := sweep.Resolve(s, rt)
	if err != nil {
		return nil, "", err
	}
	if err := PreflightAgents(ctx, &in.Spec, o.Config.Credentials()); err != nil {
		return nil, "", fmt.Errorf("%s: %w", cmp.Or(o.SpecFile, "quickstart spec"), err)
	}
	st, err := o.Config.OpenStore(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := activities.Upload(ctx, st, &in, rt); err != nil {
		return nil, "", err
	}
	if o.StartTemporal {
		dir, err := os.MkdirTemp("", "floorbench-temporal-")
		if err != nil {
			return nil, "", err
		}
		defer os.RemoveAll(dir)
		srv, err := devserver.New(devserver.TemporalCLI(o.Tools), dir, false)
		if err != nil {
			return nil, "", err
		}
		fmt.Fprintf(log, "starting a Temporal dev server on %s\n", srv.Address)
		if err := srv.Start(ctx); err != nil {
			return nil, "", err
		}
		defer srv.Stop()
		o.Config = o.Config.DevServer(srv.Address)
	}
	cl, err := temporalclient.Dial(ctx, o.Config)
	if err != nil {
		return nil, "", err
	}
	defer cl.Close()
	queues := []string{in.Spec.Queues.CPU, in.Spec.Queues.Synth, in.Spec.Queues.GPU}
	ws, err := temporalclient.StartWorkers(cl, &activities.Activities{Store: st, Runtime: rt, Limits: lim, Credentials: o.Config.Credentials(), Generative: &activities.GenerativeSettings{Secrets: o.Config.GenerativeSecrets()}}, queues, in.Spec.Queues.CPU, activities.DefaultAdmission())
	if err != nil {
		return nil, "", err
	}
	defer ws.Stop()
	fmt.Fprintf(log, "worker polling %v, store %s\n", queues, st.Describe())
	run, err := temporalclient.Submit(ctx, cl, in)
	if err != nil {
		return nil, "", err
	}
	status, err := temporalclient.Watch(ctx, cl, run.GetID(), 500*time.Millisecond, o.Progress)
	if err != nil {
		return nil, "", err
	}
	if status.State != "completed" {
		return nil, "", fmt.Errorf("quickstart sweep %s: %s", status.State, status.Error)
	}
	res, err := bundle.ReadResults(ctx, st, status.BundleID)
	if err != nil {
		return nil, "", err
	}
	where := st.Describe() + ": " + keys.Bundle(status.BundleID, "")
	if s, ok := st.(store.Summing); ok {
		st = s.Unwrap()
	}
	if l, ok := st.(*store.Local); ok {
		// The folder of the bundle on this machine, as a path a shell takes.
		where = filepath.Join(l.Root(), filepath.FromSlash(keys.Bundle(status.BundleID, ""))) + string(filepath.Separator)
	}
	return res, where, nil
}
