package viewer

import (
	"cmp"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/compare"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/store"
)

// bundleRow is one bundle on the list page.
type bundleRow struct {
	*bundle.Manifest
	Corpora, Systems []string
}

func (s *Server) manifests(r *http.Request) ([]bundleRow, error) {
	manifests, err := bundle.List(r.Context(), s.store)
	if err != nil {
		return nil, err
	}
	var rows []bundleRow
	for _, m := range manifests {
		if !keys.IsBundleID(m.BundleID) {
			continue
		}
		row := bundleRow{Manifest: m}
		for _, in := range m.Inputs {
			if in.Kind == "corpus" {
				row.Corpora = append(row.Corpora, in.Name)
			} else {
				row.Systems = append(row.Systems, in.Name)
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// list is the bundles list, newest first, filtered by q (a substring of
// the id, name, code version, a corpus or a system).
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	rows, err := s.manifests(r)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	all := rows
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if q != "" {
		lq := strings.ToLower(q)
		rows = slices.DeleteFunc(slices.Clone(rows), func(b bundleRow) bool {
			hay := strings.ToLower(strings.Join(append(append([]string{b.BundleID, b.Name, b.CodeVersion}, b.Corpora...), b.Systems...), " "))
			return !strings.Contains(hay, lq)
		})
	}
	schedules, err := s.schedules(r)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	s.render(w, r, "list.html", map[string]any{"Title": "Bundles", "Store": s.store.Describe(), "Bundles": rows, "All": all, "Q": q, "Schedules": schedules})
}

// bundlePage shows a bundle: leaderboards with intervals and paired
// comparisons, sim-to-real, operating points and figures.
func (s *Server) bundlePage(w http.ResponseWriter, r *http.Request) {
	b, err := s.load(r.Context(), r.PathValue("id"))
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	type section struct {
		Corpus string
		Tables []*report.Table
	}
	var sections []section
	for i := range b.results.Leaderboards {
		lb := &b.results.Leaderboards[i]
		if len(sections) == 0 || sections[len(sections)-1].Corpus != lb.Corpus {
			sections = append(sections, section{Corpus: lb.Corpus})
		}
		sec := &sections[len(sections)-1]
		t := lb.Table()
		t.Title = lb.Title(lb.Corpus)
		sec.Tables = append(sec.Tables, t)
		if len(lb.Paired) > 0 {
			sec.Tables = append(sec.Tables, lb.PairedTable())
		}
	}
	var simToReal *report.Table
	if len(b.results.Corpora) > 1 {
		simToReal = bundle.SimToReal(b.results)
	}
	stored, err := s.store.List(r.Context(), keys.Bundle(b.id, "figures/"))
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	var figures []string
	for _, k := range stored {
		if name := strings.TrimPrefix(k, keys.Bundle(b.id, "figures/")); figureName.MatchString(name) && strings.HasSuffix(name, ".svg") {
			figures = append(figures, name)
		}
	}
	s.render(w, r, "bundle.html", map[string]any{"Title": "Bundle " + b.manifest.Name, "B": b.manifest, "Results": b.results,
		"Sections": sections, "SimToReal": simToReal, "OperatingPoints": bundle.OperatingPointsTable(b.results.Evaluations), "Figures": figures,
		"Agents": bundle.AgentTables(b.results.Agents)})
}

var figureName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*\.(svg|png)$`)

// figure serves one stored figure of a bundle.
func (s *Server) figure(w http.ResponseWriter, r *http.Request) {
	id, name := r.PathValue("id"), r.PathValue("file")
	if !keys.IsBundleID(id) || !figureName.MatchString(name) || strings.Contains(name, "..") {
		s.fail(w, http.StatusNotFound, "No such figure.")
		return
	}
	data, err := store.GetBytes(r.Context(), s.store, keys.Bundle(id, bundle.FiguresFolder+name))
	if err != nil {
		s.failErr(w, r, s.missing(err, "Bundle %s has no figure %s.", id, name))
		return
	}
	w.Header().Set("Content-Type", map[bool]string{true: "image/svg+xml", false: "image/png"}[strings.HasSuffix(name, ".svg")])
	w.Header().Set("Cache-Control", "max-age=86400, immutable")
	_, _ = w.Write(data)
}

// eventRef is one gold item's outcome in the event browser.
type eventRef struct {
	Corpus, System string
	Task           floor.Task
	Index          int
	Row            evaluate.EventRow
	Speakers       string
	Type           string
}

// Link is the event page of e.
func (e eventRef) Link(id string) string {
	v := url.Values{"corpus": {e.Corpus}, "system": {e.System}, "task": {string(e.Task)}, "i": {strconv.Itoa(e.Index)}}
	return "/bundles/" + id + "/event?" + v.Encode()
}

// pageSize is how many events one page of the browser shows.
const pageSize = 50

// eventFilter is the event browser's query.
type eventFilter struct {
	Corpus, System, Task, Outcome, Speakers, Type string
	Page                                          int
}

func (f eventFilter) match(e *eventRef) bool {
	return (f.Corpus == "" || f.Corpus == e.Corpus) && (f.System == "" || f.System == e.System) && (f.Task == "" || f.Task == string(e.Task)) &&
		(f.Outcome == "" || f.Outcome == e.Row.Outcome) && (f.Speakers == "" || f.Speakers == e.Speakers) && (f.Type == "" || f.Type == e.Type)
}

// PageLink is the link to page p of the browser under the filter: its
// query alone. url.Values encodes it, so the page takes it as a URL as it
// is; a string after "?" in an href would be escaped again ("=" to %3d),
// and every next link would lead back to page 1.
func (f eventFilter) PageLink(p int) template.URL {
	v := url.Values{}
	for k, val := range map[string]string{"corpus": f.Corpus, "system": f.System, "task": f.Task, "outcome": f.Outcome, "speakers": f.Speakers, "type": f.Type} {
		if val != "" {
			v.Set(k, val)
		}
	}
	v.Set("page", strconv.Itoa(p))
	return template.URL("?" + v.Encode())
}

// events is the event browser: every gold item's outcome, filtered, one
// page at a time; only the page's rows go into the HTML.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	b, err := s.load(r.Context(), r.PathValue("id"))
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	q := r.URL.Query()
	f := eventFilter{Corpus: q.Get("corpus"), System: q.Get("system"), Task: q.Get("task"), Outcome: q.Get("outcome"), Speakers: q.Get("speakers"), Type: q.Get("type")}
	f.Page, _ = strconv.Atoi(q.Get("page"))
	f.Page = max(1, f.Page)
	var page []eventRef
	total := 0
	options := map[string][]string{}
	addOption := func(k, v string) {
		if v != "" && !slices.Contains(options[k], v) {
			options[k] = append(options[k], v)
		}
	}
	first := (f.Page - 1) * pageSize
	for _, e := range b.results.Evaluations {
		addOption("corpus", e.Corpus)
		addOption("system", e.System)
		attrs := b.attributes(e.Corpus)
		for _, t := range e.Tasks {
			addOption("task", string(t.Task))
			for i := range t.Events {
				a := attrs[t.Events[i].Conversation]
				addOption("speakers", a[0])
				addOption("type", a[1])
				ref := eventRef{e.Corpus, e.System, t.Task, i, t.Events[i], a[0], a[1]}
				if !f.match(&ref) {
					continue
				}
				if total >= first && total < first+pageSize {
					page = append(page, ref)
				}
				total++
			}
		}
	}
	for k := range options {
		slices.SortFunc(options[k], func(a, b string) int {
			x, errA := strconv.Atoi(a)
			y, errB := strconv.Atoi(b)
			if errA == nil && errB == nil {
				return cmp.Compare(x, y)
			}
			return strings.Compare(a, b)
		})
	}
	options["outcome"] = []string{"TP", "FN", "FP", "TN"}
	pages := max(1, (total+pageSize-1)/pageSize)
	if f.Page > pages {
		// A link kept from a larger filter or bundle: its last page.
		http.Redirect(w, r, "/bundles/"+b.id+"/events"+string(f.PageLink(pages)), http.StatusFound)
		return
	}
	s.render(w, r, "events.html", map[string]any{"Title": "Events of " + b.manifest.Name, "B": b.manifest, "Events": page, "Total": total,
		"F": f, "Pages": pages, "Prev": f.Page - 1, "Next": map[bool]int{true: f.Page + 1, false: 0}[f.Page < pages], "Options": options})
}

// attributes of a corpus's conversations from its stored manifest:
// speaker count and interaction type.
func (b *loaded) attributes(corpusName string) map[string][2]string {
	out := map[string][2]string{}
	if sc := b.corpora[corpusName]; sc != nil {
		for _, c := range sc.manifest.Conversations {
			out[c.ID] = [2]string{strconv.Itoa(c.Speakers), c.InteractionType}
		}
	}
	return out
}

// diff compares two bundles as floorbench bundle diff does.
func (s *Server) diff(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	oldID, newID := q.Get("old"), q.Get("new")
	old, err := s.load(r.Context(), oldID)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	cur, err := s.load(r.Context(), newID)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	page := map[string]any{"Title": "Diff", "Old": old.manifest, "New": cur.manifest,
		"Mismatches": compare.Mismatches(old.results, cur.results), "Tolerance": defaultTolerance}
	// The comparison `floorbench bundle diff` makes: paired bootstrap
	// verdicts when the bundles scored some of the same conversations,
	// point estimates otherwise.
	if compare.SharedConversations(old.results, cur.results) > 0 {
		v := compare.Paired(old.results, cur.results, compare.PairedOptions{Tolerance: defaultTolerance})
		page["Paired"], page["Summary"], page["Regressions"] = v.Table(), v.Summary(), v.Regressions()
		page["Resamples"], page["Seed"] = v.Resamples, v.Seed
	} else {
		changes := compare.Diff(old.results, cur.results, defaultTolerance)
		page["Changes"], page["Regressions"] = changes, compare.Regressions(changes)
	}
	s.render(w, r, "diff.html", page)
}

// defaultTolerance is floorbench bundle diff's default.
const defaultTolerance = 0.005
