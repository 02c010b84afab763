package viewer

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/floorbench/floorbench/internal/figure"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/store"
)

// schedules are the names of the schedules with runs in the store.
func (s *Server) schedules(r *http.Request) ([]string, error) {
	stored, err := s.store.List(r.Context(), keys.Schedules)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, k := range stored {
		name, ok := keys.ScheduleOf(k)
		if ok && nightly.CheckName(name) == nil && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// schedulePage shows a nightly schedule's runs, newest first, each with
// its verdict and a link to its diff, and the trend of every metric. A
// bad name or a schedule without runs is a 404 page.
func (s *Server) schedulePage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if nightly.CheckName(name) != nil {
		s.fail(w, http.StatusNotFound, "No such schedule.")
		return
	}
	runs, err := nightly.Runs(r.Context(), s.store, name)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	if len(runs) == 0 {
		s.fail(w, http.StatusNotFound, "Schedule "+name+" has no runs in this store.")
		return
	}
	slices.Reverse(runs)
	s.render(w, r, "schedule.html", map[string]any{"Title": "Schedule " + name, "Name": name, "Runs": runs, "Metrics": nightly.Metrics})
}

// trendSVG draws one metric of a schedule over its runs: per corpus a
// panel, per system its value and 95% interval at each run.
func (s *Server) trendSVG(w http.ResponseWriter, r *http.Request) {
	name, metric := r.PathValue("name"), r.URL.Query().Get("metric")
	if nightly.CheckName(name) != nil {
		s.fail(w, http.StatusNotFound, "No such schedule.")
		return
	}
	if nightly.CheckMetric(metric) != nil {
		s.fail(w, http.StatusNotFound, "No such metric.")
		return
	}
	points, err := s.trends.points(r.Context(), s.store, name)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	svg, err := figure.Render(Trend(name, metric, points[metric]), "svg")
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	_, _ = w.Write(svg)
}

// trendCache keeps, per schedule, the trend points of every metric and
// the run records they were read from. A schedule page shows one trend
// per metric, and each would otherwise read every run's results again;
// with the cache the page reads them once, and again only when a run is
// added.
type trendCache struct {
	mu      sync.Mutex
	entries map[string]*trendEntry // by schedule
}

type trendEntry struct {
	runs   []string // the run records' keys
	once   sync.Once
	points map[string][]nightly.Point
	err    error
}

// points are the trend points of schedule's runs by metric, read once for
// the run records the store lists now; a schedule without runs is a 404.
func (c *trendCache) points(ctx context.Context, st store.Store, schedule string) (map[string][]nightly.Point, error) {
	runs, err := nightly.RunKeys(ctx, st, schedule)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, notFound("Schedule %s has no runs in this store.", schedule)
	}
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[string]*trendEntry{}
	}
	e := c.entries[schedule]
	if e == nil || !slices.Equal(e.runs, runs) {
		e = &trendEntry{runs: runs}
		c.entries[schedule] = e
	}
	c.mu.Unlock()
	// The trends of one page are asked for at once: the first reads, the
	// others wait for it, so the read outlives the first request.
	e.once.Do(func() {
		ctx := context.WithoutCancel(ctx)
		var views []nightly.RunView
		if views, e.err = nightly.Runs(ctx, st, schedule); e.err == nil {
			e.points, e.err = nightly.Histories(ctx, st, views, "")
		}
	})
	if e.err != nil {
		c.mu.Lock()
		if c.entries[schedule] == e {
			delete(c.entries, schedule) // a failed read is tried again
		}
		c.mu.Unlock()
		return nil, e.err
	}
	return e.points, nil
}

// Trend is the figure of one metric over a schedule's runs: a panel per
// corpus, the runs in order along x, each system's value with its 95%
// interval, joined by a line.
func Trend(schedule, metric string, points []nightly.Point) figure.Figure {
	var runs, corpora, systems []string
	for _, p := range points {
		if p.Error == "" { // a failed run has no value to draw; the table below says why
			runs, corpora, systems = addOnce(runs, p.Scheduled), addOnce(corpora, p.Corpus), addOnce(systems, p.System)
		}
	}
	slices.Sort(runs)
	slices.Sort(corpora)
	slices.Sort(systems)
	f := figure.Figure{Name: "trend-" + metric, Title: schedule + ": test " + metric + " by run, 95% intervals", Columns: 1}
	labels := make([]string, len(runs))
	for i, t := range runs {
		labels[i], _, _ = strings.Cut(t, "T") // the date; the table below has the times
		if i > 0 && strings.HasPrefix(runs[i-1], labels[i]) {
			labels[i] = strings.TrimSuffix(strings.TrimPrefix(t, labels[i]+"T"), "Z")
		}
	}
	for _, c := range corpora {
		panel := figure.Panel{Title: c, XLabel: "run", YLabel: metric, Categories: labels, YRange: &[2]float64{0, 1}}
		for si, sys := range systems {
			var iv figure.Intervals
			var line figure.Line
			iv.Label, iv.Style, line.Style = sys, si, si
			for _, p := range points {
				if p.Error != "" || p.Corpus != c || p.System != sys {
					continue
				}
				x := float64(slices.Index(runs, p.Scheduled))
				iv.X = append(iv.X, x)
				iv.Y, iv.Lo, iv.Hi = append(iv.Y, figure.Num(p.Value)), append(iv.Lo, figure.Num(p.Lo)), append(iv.Hi, figure.Num(p.Hi))
				if v := float64(p.Value); v == v {
					line.X, line.Y = append(line.X, x), append(line.Y, v)
				}
			}
			if len(iv.X) == 0 {
				continue
			}
			panel.Intervals = append(panel.Intervals, iv)
			if len(line.X) > 1 {
				panel.Lines = append(panel.Lines, line)
			}
		}
		f.Panels = append(f.Panels, panel)
	}
	return f
}

func addOnce(l []string, v string) []string {
	if slices.Contains(l, v) {
		return l
	}
	return append(l, v)
}
