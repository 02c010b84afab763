package viewer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/viewer"
)

func get(t *testing.T, srv *httptest.Server, path string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

func results(t *testing.T, st store.Store, id string) *bundle.Results {
	data, err := store.GetBytes(context.Background(), st, keys.Bundle(id, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r bundle.Results
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// eventPath is the event page (or, with page timeline.svg, its timeline)
// of event i of the first evaluation's first task.
func eventPath(id string, e evaluate.Evaluation, i int, page string) string {
	v := url.Values{"corpus": {e.Corpus}, "system": {e.System}, "task": {string(e.Tasks[0].Task)}, "i": {strconv.Itoa(i)}}
	return "/bundles/" + id + "/" + page + "?" + v.Encode()
}

var tableRow = regexp.MustCompile(`(?s)<tbody>(.*?)</tbody>`)

func TestPagesOfARealBundle(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t)
	res := results(t, f.store, f.cur)

	resp, body := get(t, srv, "/")
	if resp.StatusCode != 200 || !strings.Contains(body, f.cur) || !strings.Contains(body, f.old) || !strings.Contains(body, "webrtcvad") {
		t.Fatalf("list: %d\n%s", resp.StatusCode, body)
	}
	if _, body := get(t, srv, "/?q=viewer-6"); !strings.Contains(body, f.cur) || strings.Contains(body, f.old+"/") {
		t.Errorf("list filtered by name shows the wrong bundles:\n%s", body)
	}

	resp, body = get(t, srv, "/bundles/"+f.cur+"/")
	for _, want := range []string{"EOT leaderboard on withdev", "INT leaderboard on nodev", "Sim-to-real", "test fp anchored", "recall ≤ 250/500/1000 ms", "Operating points", "paired comparisons", "figures/operating-curve-eot.svg", "[", "webrtcvad"} {
		if !strings.Contains(body, want) {
			t.Errorf("bundle page lacks %q", want)
		}
	}
	if resp.StatusCode != 200 {
		t.Fatalf("bundle page: %d", resp.StatusCode)
	}
	resp, svg := get(t, srv, "/bundles/"+f.cur+"/figures/operating-curve-eot.svg")
	stored, _ := store.GetBytes(context.Background(), f.store, keys.Bundle(f.cur, "figures/operating-curve-eot.svg"))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" || svg != string(stored) {
		t.Errorf("figure: %d %s, %d bytes (stored %d)", resp.StatusCode, resp.Header.Get("Content-Type"), len(svg), len(stored))
	}

	total := 0
	for _, e := range res.Evaluations {
		for _, tk := range e.Tasks {
			total += len(tk.Events)
		}
	}
	_, body = get(t, srv, "/bundles/"+f.cur+"/events")
	if total <= 50 || !strings.Contains(body, ">"+itoa(total)+" events, page 1 of ") || strings.Count(tableRow.FindString(body), "<tr>") != 50 {
		t.Errorf("events page 1 of %d events:\n%s", total, body)
	}
	_, body2 := get(t, srv, "/bundles/"+f.cur+"/events?page=2")
	if tableRow.FindString(body) == tableRow.FindString(body2) || !strings.Contains(body2, "page 2 of") {
		t.Errorf("page 2 shows what page 1 shows")
	}
	// The evaluation with the most EOT TPs, filtered to them.
	var e evaluate.Evaluation
	tps := 0
	for _, ev := range res.Evaluations {
		n := 0
		for _, r := range ev.Tasks[0].Events {
			if r.Outcome == "TP" {
				n++
			}
		}
		if n > tps {
			e, tps = ev, n
		}
	}
	filter := "/bundles/" + f.cur + "/events?" + url.Values{"system": {e.System}, "corpus": {e.Corpus}, "task": {"eot"}, "outcome": {"TP"}}.Encode()
	_, body = get(t, srv, filter)
	rows := strings.Count(tableRow.FindString(body), "<tr>")
	if tps == 0 || rows != min(tps, 50) || strings.Count(tableRow.FindString(body), ">TP<") != rows {
		t.Errorf("filtered to %s's TPs: %d rows, want %d", e.System, rows, tps)
	}

	resp, body = get(t, srv, eventPath(f.cur, e, 0, "event"))
	if resp.StatusCode != 200 || strings.Count(body, "<audio") < 3 || !strings.Contains(body, "channel=mix") || !strings.Contains(body, "timeline.svg?") {
		t.Errorf("event page: %d\n%s", resp.StatusCode, body)
	}
	resp, tl := get(t, srv, eventPath(f.cur, e, 0, "timeline.svg"))
	if resp.StatusCode != 200 || !strings.HasPrefix(tl, "<?xml") || !strings.Contains(tl, "speaker 2") {
		t.Errorf("timeline: %d %.200s", resp.StatusCode, tl)
	}

	conv := e.Tasks[0].Events[0].Conversation
	audio := "/bundles/" + f.cur + "/audio?" + url.Values{"corpus": {e.Corpus}, "conv": {conv}}.Encode()
	resp, part := get(t, srv, audio+"&channel=1", "Range", "bytes=0-99")
	wav, _ := store.GetBytes(context.Background(), f.store, keys.MemberFile(keys.Corpus(e.CorpusHash), conv, "speaker_1.wav"))
	if resp.StatusCode != http.StatusPartialContent || part != string(wav[:100]) || resp.Header.Get("Content-Type") != "audio/wav" {
		t.Errorf("a range of channel 1: %d, %q", resp.StatusCode, resp.Header.Get("Content-Range"))
	}
	resp, mix := get(t, srv, audio+"&channel=mix")
	if resp.StatusCode != 200 || !strings.HasPrefix(mix, "RIFF") || len(mix) != len(wav) {
		t.Errorf("mix: %d, %d bytes (a channel has %d)", resp.StatusCode, len(mix), len(wav))
	}

	resp, body = get(t, srv, "/diff?old="+f.old+"&new="+f.cur)
	// The two bundles scored the same fixture conversations: the page shows
	// the paired verdicts `bundle diff` prints, with their intervals.
	if resp.StatusCode != 200 || !strings.Contains(body, "Paired conversation bootstrap") || !strings.Contains(body, "Δ recall [95% CI]") || !strings.Contains(body, "<td class=\"label\">webrtcvad</td>") {
		t.Errorf("diff: %d\n%s", resp.StatusCode, body)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Bad ids, traversal attempts and missing objects get a 404 page that
// says what is wrong: never a 500, a stack trace or a file from outside
// the bundle.
func TestBadRequestsGetA404Page(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t)
	res := results(t, f.store, f.cur)
	e := res.Evaluations[0]
	missing := strings.Repeat("0", 24)
	audio := "/bundles/" + f.cur + "/audio?corpus=" + url.QueryEscape(e.Corpus)
	cases := []struct{ path, says string }{
		{"/bundles/xyz/", "is not a bundle id"},
		{"/bundles/" + missing + "/", "No bundle " + missing},
		{"/bundles/..%2F..%2Fetc/", "is not a bundle id"},
		{"/bundles/%2e%2e/events", "is not a bundle id"},
		{"/bundles/" + f.cur + "/figures/..%2Fmanifest.json", "No such figure"},
		{"/bundles/" + f.cur + "/figures/..%2F..%2F" + f.old + "%2Fresults.json", "No such figure"},
		{"/bundles/" + f.cur + "/figures/nothing.svg", "has no figure nothing.svg"},
		{"/bundles/" + missing + "/figures/latency-eot.svg", "has no figure"},
		{"/bundles/" + f.cur + "/event?corpus=" + url.QueryEscape(e.Corpus) + "&system=" + e.System + "&task=eot&i=100000", "there is no event 100000"},
		{"/bundles/" + f.cur + "/event?corpus=" + url.QueryEscape(e.Corpus) + "&system=" + e.System + "&task=eot&i=x", "is not a number"},
		{"/bundles/" + f.cur + "/event?corpus=..&system=../x&task=eot&i=0", "has no evaluation of system"},
		{"/bundles/" + f.cur + "/timeline.svg?corpus=none&system=none&task=eot&i=0", "has no evaluation"},
		{audio + "&conv=..%2F..%2Fbundles&channel=1", "scored no conversation"},
		{audio + "&conv=" + e.Tasks[0].Events[0].Conversation + "&channel=..%2Fspeaker_1.wav", "want mix or a speaker number"},
		{audio + "&conv=" + e.Tasks[0].Events[0].Conversation + "&channel=9", "no audio for"},
		{"/diff?old=" + f.old + "&new=" + missing, "No bundle " + missing},
		{"/diff?old=../x&new=" + f.cur, "is not a bundle id"},
		{"/nothing/here", "No page at /nothing/here"},
	}
	for _, c := range cases {
		resp, body := get(t, srv, c.path)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(body, c.says) || strings.Contains(body, "goroutine") || strings.Contains(body, "RIFF") || strings.Contains(body, "schema_version") {
			t.Errorf("%s: %d %s\n%.300s", c.path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
}

// failingStore is a store whose reads fail (a broken connection).
type failingStore struct{ store.Store }

func (failingStore) Get(context.Context, string) (io.ReadCloser, error) {
	return nil, errors.New("connect: secret-token-in-an-error")
}

// A failing store is a 502 page that hides the error's text (it may name
// hosts or tokens); the log has it.
func TestStoreFailureIsA502WithoutDetail(t *testing.T) {
	f := newFixture(t)
	var logged bytes.Buffer
	srv := httptest.NewServer(viewer.New(failingStore{f.store}, newLogger(&logged), limits.Default()))
	defer srv.Close()
	for _, path := range []string{"/", "/bundles/" + f.cur + "/"} {
		resp, body := get(t, srv, path)
		if resp.StatusCode != http.StatusBadGateway || strings.Contains(body, "secret-token") || !strings.Contains(body, "The store could not be read") {
			t.Errorf("%s: %d\n%s", path, resp.StatusCode, body)
		}
	}
	if !strings.Contains(logged.String(), "secret-token-in-an-error") {
		t.Errorf("the log lacks the error: %q", logged.String())
	}
}

var (
	nextLink = regexp.MustCompile(`<a id="next" href="\?([^"]*)">`)
	prevLink = regexp.MustCompile(`<a id="prev" href="\?([^"]*)">`)
)

// The event browser pages through every event, filtered or not: each page
// holds at most 50 rows, the next links lead from the first page to the
// last, which has no next link, and together the pages hold every event
// once.
func TestEventBrowserPagesThroughEveryEvent(t *testing.T) {
	f := newFixture(t)
	srv := f.server(t)
	res := results(t, f.store, f.cur)
	system := res.Evaluations[0].System
	for _, filter := range []url.Values{{}, {"system": {system}}} {
		total := 0
		for _, e := range res.Evaluations {
			for _, tk := range e.Tasks {
				if filter.Get("system") == "" || e.System == filter.Get("system") {
					total += len(tk.Events)
				}
			}
		}
		pages := (total + 49) / 50
		seen := map[string]bool{}
		query := filter.Encode()
		for page := 1; ; page++ {
			_, body := get(t, srv, "/bundles/"+f.cur+"/events?"+query)
			if !strings.Contains(body, fmt.Sprintf(">%d events, page %d of %d.<", total, page, pages)) {
				t.Fatalf("%s: not page %d of %d of %d events:\n%s", query, page, pages, total, body)
			}
			rows := tableRow.FindStringSubmatch(body)[1]
			n := strings.Count(rows, "<tr>")
			if n > 50 || page < pages && n != 50 {
				t.Errorf("%s: page %d has %d rows", query, page, n)
			}
			for _, row := range strings.Split(rows, "<tr>")[1:] {
				if filter.Get("system") != "" && !strings.Contains(row, ">"+system+"<") {
					t.Errorf("%s: page %d shows another system's event", query, page)
				}
				href := regexp.MustCompile(`href="([^"]*)"`).FindStringSubmatch(row)[1]
				if seen[href] {
					t.Errorf("%s: event %s on two pages", query, href)
				}
				seen[href] = true
			}
			m := nextLink.FindStringSubmatch(body)
			if m == nil {
				if page != pages {
					t.Errorf("%s: page %d of %d has no next link", query, page, pages)
				}
				if prev := prevLink.FindStringSubmatch(body); pages > 1 {
					var v url.Values
					if prev != nil {
						v, _ = url.ParseQuery(html.UnescapeString(prev[1]))
					}
					if v.Get("page") != strconv.Itoa(page-1) || v.Get("system") != filter.Get("system") {
						t.Errorf("%s: the last page's previous link is %q, want page %d of the same filter", query, prev, page-1)
					}
				}
				break
			}
			if page >= pages {
				t.Fatalf("%s: the last page links to a next one", query)
			}
			query = html.UnescapeString(m[1])
		}
		if len(seen) != total {
			t.Errorf("%s: the pages hold %d events, want %d", filter.Encode(), len(seen), total)
		}
		filter.Set("page", "999")
		if _, body := get(t, srv, "/bundles/"+f.cur+"/events?"+filter.Encode()); !strings.Contains(body, fmt.Sprintf(">%d events, page %d of %d.<", total, pages, pages)) {
			t.Errorf("%s: a page past the last does not lead to the last", filter.Encode())
		}
	}
}
