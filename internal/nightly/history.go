package nightly

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/store"
)

// Metrics are the names `schedule history --metric` takes: task.rate.
var Metrics = []string{"eot.recall", "eot.fp_rate", "int.recall", "int.fp_rate"}

// Point is one run's value of a metric for one system on one corpus, with
// its 95% CI from the run's bundle.
type Point struct {
	Scheduled string     `json:"scheduled_time"`
	BundleID  string     `json:"bundle_id"`
	Corpus    string     `json:"corpus"`
	System    string     `json:"system"`
	Metric    string     `json:"metric"`
	Value     report.Num `json:"value"`
	Lo        report.Num `json:"ci_lo"`
	Hi        report.Num `json:"ci_hi"`
	// Error is why the run failed: its one point has no bundle, no corpus,
	// no system and no value, so a trend shows the gap and its cause.
	Error string `json:"error,omitempty"`
}

// CheckMetric accepts one of Metrics.
func CheckMetric(metric string) error {
	for _, m := range Metrics {
		if m == metric {
			return nil
		}
	}
	return fmt.Errorf("--metric %q: want one of %s", metric, strings.Join(Metrics, ", "))
}

// History is a metric per run of a schedule, oldest first: every system
// (or only system, when not "") on every corpus of each run's bundle, and
// one point with the error for each run that failed.
func History(ctx context.Context, st store.Store, schedule, system, metric string) ([]Point, error) {
	if err := CheckMetric(metric); err != nil {
		return nil, err
	}
	runs, err := Runs(ctx, st, schedule)
	if err != nil {
		return nil, err
	}
	all, err := Histories(ctx, st, runs, "")
	if err != nil {
		return nil, err
	}
	points := all[metric]
	if system == "" {
		return points, nil
	}
	if systems := systemsOf(points); len(systems) > 0 && !slices.Contains(systems, system) {
		return nil, fmt.Errorf("--system %q: no run of schedule %s evaluated a system of that name (its runs have %s)", system, schedule, strings.Join(systems, ", "))
	}
	return slices.DeleteFunc(points, func(p Point) bool { return p.Error == "" && p.System != system }), nil
}

// systemsOf lists the systems points name, sorted.
func systemsOf(points []Point) []string {
	var out []string
	for _, p := range points {
		if p.System != "" && !slices.Contains(out, p.System) {
			out = append(out, p.System)
		}
	}
	slices.Sort(out)
	return out
}

// Histories is History of every metric over runs, by metric, reading each
// run's results once.
func Histories(ctx context.Context, st store.Store, runs []RunView, system string) (map[string][]Point, error) {
	out := map[string][]Point{}
	for _, m := range Metrics {
		out[m] = []Point{}
	}
	for _, r := range runs {
		if r.Error != "" {
			nan := report.Num(math.NaN())
			for _, m := range Metrics {
				out[m] = append(out[m], Point{Scheduled: r.Scheduled, Metric: m, Value: nan, Lo: nan, Hi: nan, Error: r.Error})
			}
			continue
		}
		if r.BundleID == "" {
			continue
		}
		res, err := bundle.ReadResults(ctx, st, r.BundleID)
		if err != nil {
			return nil, err
		}
		for _, e := range res.Evaluations {
			if system != "" && e.System != system {
				continue
			}
			for _, t := range e.Tasks {
				if t.Test == nil {
					continue
				}
				for _, rate := range []string{"recall", "fp_rate"} {
					metric := string(t.Task) + "." + rate
					p := Point{Scheduled: r.Scheduled, BundleID: r.BundleID, Corpus: e.Corpus, System: e.System, Metric: metric,
						Value: t.Test.Recall, Lo: report.Num(math.NaN()), Hi: report.Num(math.NaN())}
					if rate == "fp_rate" {
						p.Value = t.Test.FPRate
					}
					if ci := t.Test.CI95; ci != nil {
						iv := ci.Recall
						if rate == "fp_rate" {
							iv = ci.FPRate
						}
						p.Lo, p.Hi = iv[0], iv[1]
					}
					out[metric] = append(out[metric], p)
				}
			}
		}
	}
	return out, nil
}
