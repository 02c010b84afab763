package nightly

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
)

// Settings are a schedule's settings: what `schedule create` sets and
// `schedule update` changes. The schedule keeps them in Temporal, as this
// JSON.
type Settings struct {
	Name string `json:"name"`
	// Cron or Every says when runs are due (one of them).
	Cron          string        `json:"cron,omitempty"`
	Every         time.Duration `json:"every,omitempty"`
	SpecKey       string        `json:"spec_key"`
	SpecFile      string        `json:"spec_file"`
	Baseline      string        `json:"baseline"`
	Tolerance     float64       `json:"tolerance"`
	Notify        string        `json:"notify,omitempty"`
	CatchupWindow time.Duration `json:"catchup_window"`
	TaskQueue     string        `json:"task_queue"`
}

// minCatchupWindow is Temporal's least catch-up window.
const minCatchupWindow = 10 * time.Second

// Checks are the rules of the layers above this package that a
// schedule's settings must also pass.
type Checks struct {
	// Notify accepts a webhook URL the configuration allows.
	Notify func(url string) error
	// Resolve accepts a sweep whose systems and corpora resolve now, as
	// submit checks them.
	Resolve func(*spec.Sweep) error
	// BundleID turns what a user typed as a bundle (a full id, a unique
	// prefix, "latest") into a bundle id.
	BundleID func(ctx context.Context, st store.Store, arg string) (string, error)
	// Limits bound the spec files read (zero: the defaults).
	Limits limits.Limits
}

var errNoSpec = errors.New("no sweep spec: give it with -f")

// CheckNew checks everything a new schedule is given before anything is
// stored or created, and returns the spec to store (the file with its
// paths made absolute); s gets the spec's key, file and task queue, and a
// pinned baseline its full bundle id.
func CheckNew(ctx context.Context, st store.Store, file string, s *Settings, c Checks) ([]byte, error) {
	if file == "" {
		return nil, errNoSpec
	}
	if err := s.check(c.Notify); err != nil {
		return nil, err
	}
	data, sw, err := scheduledSpec(file, s, c.Resolve, c.Limits)
	if err != nil {
		return nil, err
	}
	if s.Baseline != BaselinePrevious {
		if err := checkBaseline(ctx, st, s, sw, c.BundleID); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// Changes says which of a schedule's settings an update gives: a new
// spec (read from File) and a new baseline; the others are in the
// Settings themselves.
type Changes struct {
	Spec     bool
	File     string
	Baseline bool
}

// CheckUpdate checks a schedule's changed settings s before anything
// changes, and returns the new spec to store (nil: the spec stays). A
// pinned baseline is checked against the spec the schedule will run when
// either changes.
func CheckUpdate(ctx context.Context, st store.Store, ch Changes, s *Settings, c Checks) ([]byte, error) {
	if ch.Spec && ch.File == "" {
		return nil, errNoSpec
	}
	if err := s.check(c.Notify); err != nil {
		return nil, err
	}
	var data []byte
	var sw *spec.Sweep
	var err error
	if ch.Spec {
		if data, sw, err = scheduledSpec(ch.File, s, c.Resolve, c.Limits); err != nil {
			return nil, err
		}
	}
	if s.Baseline == BaselinePrevious || !ch.Spec && !ch.Baseline {
		return data, nil
	}
	if sw == nil {
		stored, err := store.GetBytes(ctx, st, s.SpecKey)
		if err != nil {
			return nil, fmt.Errorf("schedule %s: its spec: %w", s.Name, err)
		}
		if sw, err = spec.Parse(s.SpecKey, stored, c.Limits.OrDefault()); err != nil {
			return nil, err
		}
	}
	if err := checkBaseline(ctx, st, s, sw, c.BundleID); err != nil {
		return nil, err
	}
	return data, nil
}

// check checks when runs are due, the catch-up window, the tolerance and
// the webhook.
func (s *Settings) check(checkNotify func(string) error) error {
	switch {
	case s.Cron == "" && s.Every == 0:
		return fmt.Errorf("say when runs are due: --cron EXPR or --every DURATION")
	case s.Cron == "" && s.Every < time.Second:
		return fmt.Errorf("--every %s: want at least 1s", s.Every)
	case s.Cron != "" && len(strings.Fields(s.Cron)) != 5:
		return fmt.Errorf("--cron %q: want five fields (minute hour day-of-month month day-of-week)", s.Cron)
	}
	if s.CatchupWindow < minCatchupWindow {
		return fmt.Errorf("--catchup-window %s: want at least 10s (Temporal's minimum)", s.CatchupWindow)
	}
	if err := compare.CheckTolerance(s.Tolerance); err != nil {
		return err
	}
	if s.Notify != "" {
		return checkNotify(s.Notify)
	}
	return nil
}

// scheduledSpec reads a sweep spec to schedule, checks it with resolve
// and returns it as it will be stored, its paths made absolute (the
// workers must see those paths); s gets its store key, file and task
// queue.
func scheduledSpec(file string, s *Settings, resolve func(*spec.Sweep) error, lim limits.Limits) ([]byte, *spec.Sweep, error) {
	lim = lim.OrDefault()
	sw, err := spec.Load(file, lim)
	if err != nil {
		return nil, nil, err
	}
	for i := range sw.Corpora {
		if p := sw.Corpora[i].Path; p != "" {
			if sw.Corpora[i].Path, err = filepath.Abs(p); err != nil {
				return nil, nil, err
			}
		}
	}
	for i := range sw.Systems {
		if p := sw.Systems[i].Spec; p != "" {
			if sw.Systems[i].Spec, err = filepath.Abs(p); err != nil {
				return nil, nil, err
			}
		}
	}
	data, err := yaml.Marshal(sw)
	if err != nil {
		return nil, nil, err
	}
	resolved, err := spec.Parse(file, data, lim)
	if err != nil {
		return nil, nil, err
	}
	if err := resolve(resolved); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	s.SpecKey, s.SpecFile, s.TaskQueue = SpecKey(data), file, resolved.Queues.CPU
	if abs, err := filepath.Abs(file); err == nil {
		s.SpecFile = abs
	}
	return data, sw, nil
}

// checkBaseline accepts a pinned baseline that exists and evaluated one
// of the spec's corpora (else no run could be compared with it), and
// sets s.Baseline to its full id.
func checkBaseline(ctx context.Context, st store.Store, s *Settings, sw *spec.Sweep, bundleID func(context.Context, store.Store, string) (string, error)) error {
	id, err := bundleID(ctx, st, s.Baseline)
	if err != nil {
		return fmt.Errorf("--baseline: %w", err)
	}
	res, err := bundle.ReadResults(ctx, st, id)
	if err != nil {
		return fmt.Errorf("--baseline: %w", err)
	}
	var names []string
	for _, c := range sw.Corpora {
		names = append(names, c.Name)
	}
	shared := false
	for _, e := range res.Evaluations {
		shared = shared || slices.Contains(names, e.Corpus)
	}
	if !shared {
		return fmt.Errorf("--baseline %s: the bundle shares no corpus with the spec (it has none of %s)", id, strings.Join(names, ", "))
	}
	s.Baseline = id
	return nil
}
