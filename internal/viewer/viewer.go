package viewer

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"golang.org/x/sync/singleflight"
)

//go:embed templates/*.html
var templateFS embed.FS

// Server is the read-only viewer over a store: it only Gets, Stats and
// Lists, and every key it builds comes from a checked bundle id and names
// found in that bundle's results.
type Server struct {
	store  store.Store
	limits limits.Limits
	pages  *template.Template
	mux    *http.ServeMux
	log    *log.Logger

	mu     sync.Mutex
	cached []*loaded // most recently used last
	// loading reads each bundle once however many requests ask for it
	// before it is cached: a bundle's parsed results are megabytes.
	loading singleflight.Group

	trends trendCache
	slots  chan struct{} // the heavy requests running (heavy)
	// heavyWait is how long a heavy request waits for a slot.
	heavyWait time.Duration
}

// cacheSize is how many bundles' parsed results are kept: bundles are
// immutable, so a cached one is never stale.
const cacheSize = 4

// loaded is one bundle as the pages use it.
type loaded struct {
	id       string
	manifest *bundle.Manifest
	results  *bundle.Results
	// corpora are the bundle's corpora found in the store, by corpus name
	// (absent when the store does not hold it).
	corpora map[string]*storedCorpus
}

// storedCorpus is one corpus of a bundle as the store holds it.
type storedCorpus struct {
	prefix   string // its folder in the store, without the trailing /
	manifest *corpus.Manifest
}

// New returns the viewer of st; logger receives errors the pages only
// summarise (nil: the standard logger); lim bounds the objects it reads.
func New(st store.Store, logger *log.Logger, lim limits.Limits) *Server {
	if logger == nil {
		logger = log.Default()
	}
	s := &Server{store: st, limits: lim, log: logger, mux: http.NewServeMux(), slots: make(chan struct{}, maxHeavy), heavyWait: heavyWait}
	s.pages = template.Must(template.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.html"))
	s.mux.HandleFunc("GET /{$}", s.list)
	s.mux.HandleFunc("GET /bundles/{id}/{$}", s.bundlePage)
	s.mux.HandleFunc("GET /bundles/{id}/figures/{file}", s.heavy(s.figure))
	s.mux.HandleFunc("GET /bundles/{id}/events", s.events)
	s.mux.HandleFunc("GET /bundles/{id}/event", s.event)
	s.mux.HandleFunc("GET /bundles/{id}/timeline.svg", s.heavy(s.timelineSVG))
	s.mux.HandleFunc("GET /bundles/{id}/audio", s.heavy(s.audio))
	s.mux.HandleFunc("GET /diff", s.diff)
	s.mux.HandleFunc("GET /schedules/{name}/{$}", s.schedulePage)
	s.mux.HandleFunc("GET /schedules/{name}/trend.svg", s.heavy(s.trendSVG))
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, http.StatusNotFound, "No page at "+r.URL.Path+".")
	})
	return s
}

// ServeHTTP serves a page; nothing the viewer does writes to the store.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Printf("viewer: %s %s: panic: %v", r.Method, r.URL.Path, v)
			s.fail(w, http.StatusInternalServerError, "The viewer failed on this page; the server log says why.")
		}
	}()
	// Everything a page needs is served from here: no script, style or
	// font from elsewhere, and no framing by other sites.
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self'; frame-ancestors 'none'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	s.mux.ServeHTTP(w, r)
}

// errNotFound is a page's clear "no such thing", shown as a 404.
type errNotFound struct{ msg string }

func (e errNotFound) Error() string { return e.msg }

func notFound(format string, args ...any) error { return errNotFound{fmt.Sprintf(format, args...)} }

// load reads a bundle's manifest, results and the manifests of its stored
// corpora, or takes them from the cache. Requests for a bundle not yet
// cached wait for one read of it.
func (s *Server) load(ctx context.Context, id string) (*loaded, error) {
	if !keys.IsBundleID(id) {
		return nil, notFound("%q is not a bundle id (32 hexadecimal digits).", id)
	}
	if b := s.fromCache(id); b != nil {
		return b, nil
	}
	v, err, _ := s.loading.Do(id, func() (any, error) {
		if b := s.fromCache(id); b != nil { // read while this request waited
			return b, nil
		}
		b, err := s.read(context.WithoutCancel(ctx), id)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.cached = append(s.cached, b)
		if len(s.cached) > cacheSize {
			s.cached = s.cached[1:]
		}
		s.mu.Unlock()
		return b, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*loaded), nil
}

// fromCache is bundle id's cached read, marked most recently used, or nil.
func (s *Server) fromCache(id string) *loaded {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, b := range s.cached {
		if b.id == id {
			s.cached = append(slices.Delete(s.cached, i, i+1), b)
			return b
		}
	}
	return nil
}

// read reads bundle id from the store.
func (s *Server) read(ctx context.Context, id string) (*loaded, error) {
	b := &loaded{id: id, corpora: map[string]*storedCorpus{}}
	var err error
	if b.manifest, err = bundle.ReadManifest(ctx, s.store, id); err != nil {
		return nil, s.missing(err, "No bundle %s in %s.", id, s.store.Describe())
	}
	if b.results, err = bundle.ReadResults(ctx, s.store, id); err != nil {
		return nil, s.missing(err, "Bundle %s has no %s.", id, keys.ResultsFile)
	}
	prefixes := specPrefixes(b.manifest.Spec)
	tried := map[string]bool{}
	for _, e := range b.results.Evaluations {
		if tried[e.Corpus] {
			continue
		}
		tried[e.Corpus] = true
		c, err := s.findCorpus(ctx, e.CorpusHash, prefixes[e.Corpus])
		if err != nil {
			s.log.Printf("viewer: bundle %s, corpus %s: %v", id, e.Corpus, err)
		}
		if c != nil {
			b.corpora[e.Corpus] = c
		}
	}
	return b, nil
}

// specPrefixes are the store prefixes a sweep's spec gives its corpora
// (`s3:` in docs/formats.md), by corpus name; none when the spec does not
// parse.
func specPrefixes(raw []byte) map[string]string {
	var sp spec.Sweep
	out := map[string]string{}
	if json.Unmarshal(raw, &sp) == nil {
		for _, c := range sp.Corpora {
			if c.S3 != "" {
				out[c.Name] = strings.TrimSuffix(c.S3, "/")
			}
		}
	}
	return out
}

// findCorpus looks for the corpus with content hash where a sweep reads
// it: under the spec's s3 prefix (a corpus ingested elsewhere, such as
// TurnBench, and copied into the store), else under corpora/<hash>
// (generated, or uploaded from a local folder at submission). A manifest
// with another hash is another corpus (the prefix was reused since) and
// is passed over. It returns nil when neither holds the corpus.
func (s *Server) findCorpus(ctx context.Context, hash, s3Prefix string) (*storedCorpus, error) {
	var candidates []string
	if s3Prefix != "" {
		candidates = append(candidates, s3Prefix)
	}
	if store.CheckKey(hash) == nil {
		candidates = append(candidates, keys.Corpus(hash))
	}
	for _, prefix := range candidates {
		key := keys.File(prefix, corpus.ManifestName)
		if store.CheckKey(key) != nil {
			continue
		}
		data, err := store.GetBytes(ctx, s.store, key)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if digest.Identity(data) != hash {
			continue
		}
		m, err := corpus.ParseManifest(data, s.limits)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		return &storedCorpus{prefix: prefix, manifest: m}, nil
	}
	return nil, nil
}

// corpusPrefix is where the store holds corpus name of the bundle: where
// it was found, else corpora/<hash>.
func (b *loaded) corpusPrefix(name, hash string) string {
	if c := b.corpora[name]; c != nil {
		return c.prefix
	}
	return keys.Corpus(hash)
}

// missing turns a store error into the page's error: a missing object is
// a 404 with msg; anything else is logged and summarised.
func (s *Server) missing(err error, format string, args ...any) error {
	var nf errNotFound
	if errors.Is(err, store.ErrNotFound) || errors.As(err, &nf) {
		return notFound(format, args...)
	}
	return err
}

// fail writes the error page with status and a message a reader can act on.
func (s *Server) fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = s.pages.ExecuteTemplate(w, "error.html", map[string]any{"Status": status, "StatusText": http.StatusText(status), "Message": msg})
}

// failErr shows err: a 404 for what does not exist or is not allowed, a
// 502 (details in the log only) when the store fails.
func (s *Server) failErr(w http.ResponseWriter, r *http.Request, err error) {
	var nf errNotFound
	if errors.As(err, &nf) {
		s.fail(w, http.StatusNotFound, nf.msg)
		return
	}
	s.log.Printf("viewer: %s: %v", r.URL.Path, err)
	s.fail(w, http.StatusBadGateway, "The store could not be read; the server log says why.")
}

// render writes page with data, or the error page when it fails.
func (s *Server) render(w http.ResponseWriter, r *http.Request, page string, data any) {
	var buf strings.Builder
	if err := s.pages.ExecuteTemplate(&buf, page, data); err != nil {
		s.log.Printf("viewer: %s: %v", r.URL.Path, err)
		s.fail(w, http.StatusInternalServerError, "The page could not be drawn; the server log says why.")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(buf.String()))
}

var funcs = template.FuncMap{
	"rate":  func(v report.Num) string { return report.Rate(float64(v)) },
	"fixed": func(v report.Num, d int) string { return report.Fixed(float64(v), d) },
	"upper": strings.ToUpper,
	"add":   func(a, b int) int { return a + b },
	"join":  strings.Join,
	"list":  func(v ...string) []string { return v },
	"dict": func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	},
	"labels": func(t *report.Table) int { return max(1, t.Labels) },
	"field": func(f eventFilter, name string) string {
		return map[string]string{"corpus": f.Corpus, "system": f.System, "task": f.Task, "outcome": f.Outcome, "speakers": f.Speakers, "type": f.Type}[name]
	},
}
