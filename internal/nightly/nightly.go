package nightly

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/names"
	"github.com/floorbench/floorbench/internal/store"
)

// Baseline "previous" compares each run with the schedule's previous
// successful run; any other baseline is a pinned bundle id.
const BaselinePrevious = "previous"

var scheduleName = names.MustForm(`^[a-z0-9][a-z0-9-]*$`, 63)

// CheckName accepts a schedule name: 1-63 lowercase letters, digits and
// '-', starting with a letter or digit (it is a store key segment and part
// of Temporal ids).
func CheckName(name string) error {
	if !scheduleName.Match(name) {
		return fmt.Errorf("schedule name %q: want 1-63 lowercase letters, digits or '-', starting with a letter or digit", name)
	}
	return nil
}

// SpecKey is where a scheduled spec is stored: under its content hash, so
// the same spec is stored once whatever schedules use it.
func SpecKey(data []byte) string {
	sum := sha256.Sum256(data)
	return keys.Spec(hex.EncodeToString(sum[:]))
}

// Files of a run's folder.
const (
	RunFile         = "run.json"
	VerdictFile     = "verdict.json"
	VerdictMarkdown = "verdict.md"
	NotifyFile      = "notify.json"
)

// Run is run.json: what one scheduled run used and found.
type Run struct {
	Schedule    string `json:"schedule"`
	Scheduled   string `json:"scheduled_time"`
	WorkflowID  string `json:"workflow_id"`
	BundleID    string `json:"bundle_id"`
	SpecKey     string `json:"spec_key"`
	SpecHash    string `json:"spec_hash"`
	CodeVersion string `json:"code_version"`
	// Inputs are the content hashes of the corpora and systems the run
	// resolved (the bundle's manifest holds the same).
	Inputs []bundle.InputRef `json:"inputs"`
	// Baseline is the bundle compared with ("": none, a first run).
	Baseline string                  `json:"baseline_bundle"`
	Counts   map[compare.Outcome]int `json:"verdict_counts"`
	// Error is why a failed run has no bundle and no verdict ("": it
	// succeeded).
	Error string `json:"error,omitempty"`
}

// Notification is notify.json: the outcome of posting the verdict.
type Notification struct {
	URL      string `json:"url"`
	OK       bool   `json:"ok"`
	Attempts int    `json:"attempts"`
	Error    string `json:"error,omitempty"`
}

// RunView is a run with its notification, as `schedule show` lists it.
type RunView struct {
	Run
	Notification *Notification `json:"notification,omitempty"`
}

// RunKeys lists the keys of a schedule's run records, oldest first,
// without reading them: a run record is written once, so the list names
// what Runs would read.
func RunKeys(ctx context.Context, st store.Store, schedule string) ([]string, error) {
	stored, err := st.List(ctx, keys.ScheduleRuns(schedule))
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(stored, func(k string) bool { return path.Base(k) != RunFile }), nil
}

// Runs reads the run records of a schedule, oldest first.
func Runs(ctx context.Context, st store.Store, schedule string) ([]RunView, error) {
	records, err := RunKeys(ctx, st, schedule)
	if err != nil {
		return nil, err
	}
	var out []RunView
	for _, k := range records {
		var v RunView
		if err := readJSON(ctx, st, k, &v.Run); err != nil {
			return nil, err
		}
		var n Notification
		switch err := readJSON(ctx, st, strings.TrimSuffix(k, RunFile)+NotifyFile, &n); {
		case err == nil:
			v.Notification = &n
		case !errors.Is(err, store.ErrNotFound):
			return nil, err
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b RunView) int { return strings.Compare(a.Scheduled, b.Scheduled) })
	return out, nil
}

// Previous is the latest run of schedule scheduled before t that produced
// a bundle (failed runs are passed over); ok is false when there is none.
func Previous(ctx context.Context, st store.Store, schedule string, t time.Time) (Run, bool, error) {
	runs, err := Runs(ctx, st, schedule)
	if err != nil {
		return Run{}, false, err
	}
	at := t.UTC().Format(time.RFC3339)
	for i := len(runs) - 1; i >= 0; i-- {
		if r := runs[i].Run; r.Scheduled < at && r.BundleID != "" {
			return r, true, nil
		}
	}
	return Run{}, false, nil
}

func readJSON(ctx context.Context, st store.Store, key string, v any) error {
	data, err := store.GetBytes(ctx, st, key)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}
