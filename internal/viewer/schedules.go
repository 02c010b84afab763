package viewer

import (
	"net/http"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/figure"
	"github.com/floorbench/floorbench/internal/nightly"
)

// schedules are the names of the schedules with runs in the store.
func (s *Server) schedules(r *http.Request) ([]string, error) {
	stored, err := s.store.List(r.Context(), "schedules/")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, k := range stored {
		name, _, _ := strings.Cut(strings.TrimPrefix(k, "schedules/"), "/")
		if nightly.CheckName(name) == nil && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// scheduleRuns reads a schedule's runs, answering a bad name or a
// schedule with no runs with a 404 page; ok is false when it answered.
func (s *Server) scheduleRuns(w http.ResponseWriter, r *http.Request) (string, []nightly.RunView, bool) {
	name := r.PathValue("name")
	if nightly.CheckName(name) != nil {
		s.fail(w, http.StatusNotFound, "No such schedule.")
		return "", nil, false
	}
	runs, err := nightly.Runs(r.Context(), s.store, name)
	if err != nil {
		s.failErr(w, r, err)
		return "", nil, false
	}
	if len(runs) == 0 {
		s.fail(w, http.StatusNotFound, "Schedule "+name+" has no runs in this store.")
		return "", nil, false
	}
	return name, runs, true
}

// schedulePage shows a nightly schedule's runs, newest first, each with
// its verdict and a link to its diff, and the trend of every metric.
func (s *Server) schedulePage(w http.ResponseWriter, r *http.Request) {
	name, runs, ok := s.scheduleRuns(w, r)
	if !ok {
		return
	}
	slices.Reverse(runs)
	s.render(w, r, "schedule.html", map[string]any{"Title": "Schedule " + name, "Name": name, "Runs": runs, "Metrics": nightly.Metrics})
}

// trendSVG draws one metric of a schedule over its runs: per corpus a
// panel, per system its value and 95% interval at each run.
func (s *Server) trendSVG(w http.ResponseWriter, r *http.Request) {
	name, _, ok := s.scheduleRuns(w, r)
	if !ok {
		return
	}
	metric := r.URL.Query().Get("metric")
	if nightly.CheckMetric(metric) != nil {
		s.fail(w, http.StatusNotFound, "No such metric.")
		return
	}
	points, err := nightly.History(r.Context(), s.store, name, "", metric)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	svg, err := figure.Render(Trend(name, metric, points), "svg")
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	_, _ = w.Write(svg)
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
