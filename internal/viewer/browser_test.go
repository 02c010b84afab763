package viewer_test

import (
	"bytes"
	"context"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/testenv"
)

// artifacts is where the browser test leaves its screenshots:
// $FLOORBENCH_ARTIFACTS/viewer when set, else the test's temporary folder.
func artifacts(t *testing.T) string {
	dir := t.TempDir()
	if a := os.Getenv("FLOORBENCH_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "viewer")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The viewer in Debian's Chromium: the list, a bundle with its figures,
// the event browser, an event whose timeline draws and whose audio
// players load the conversation at its real length, and the diff page.
func TestViewerInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	chromium := testenv.Program(t, "chromium", "browser")
	f := newFixture(t)
	srv := f.server(t)
	dir := artifacts(t)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	browser, cancel := chromedp.NewContext(actx)
	defer cancel()
	// The first action starts the browser: it must not run under the
	// timeout, which would stop the browser with it.
	if err := chromedp.Do(browser, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(browser, 3*time.Minute)
	defer cancel()
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			png, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
		})
	}
	poll := func(expr string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(30*time.Second))(ctx, tg)
			return err
		})
	}
	step := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	value := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}

	step("list", chromedp.WaitVisible("#bundles"), shot("list"))
	if n := value(`String(document.querySelectorAll("#bundles tbody a").length)`); n != "2" {
		t.Errorf("the list shows %s bundles, want 2", n)
	}
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(`a[href="/bundles/`+f.cur+`/"]`, chromedp.NodeVisible))); err != nil {
		t.Fatalf("open the bundle: %v", err)
	}
	step("bundle", chromedp.WaitVisible("h1"),
		poll(`document.images.length > 5 && Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)`), shot("bundle"))
	if h := value(`document.querySelector("h1").textContent`); h != "viewer-6" {
		t.Errorf("bundle page titled %q", h)
	}

	step("events", chromedp.Navigate(srv.URL+"/bundles/"+f.cur+"/events"), chromedp.WaitVisible("#events"), shot("events"))
	if next := value(`(document.getElementById("next") || {}).href || ""`); next == "" {
		t.Errorf("the events page (%s) has no next page", value(`document.getElementById("count").textContent`))
	}
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(`#next`, chromedp.NodeVisible))); err != nil {
		t.Fatalf("follow the next link: %v", err)
	}
	if count := value(`document.getElementById("count").textContent`); !strings.Contains(count, "page 2 of") {
		t.Errorf("the next link led to %q, want page 2", count)
	}

	res := results(t, f.store, f.cur)
	e := res.Evaluations[len(res.Evaluations)-1]
	i := 0
	for j, r := range e.Tasks[0].Events {
		if r.Outcome == "TP" || r.Outcome == "FP" {
			i = j
			break
		}
	}
	conv := e.Tasks[0].Events[i].Conversation
	wav, err := store.GetBytes(context.Background(), f.store, keys.MemberFile(keys.Corpus(e.CorpusHash), conv, "speaker_1.wav"))
	if err != nil {
		t.Fatal(err)
	}
	samples, rate, err := audio.DecodeWAV(bytes.NewReader(wav))
	if err != nil {
		t.Fatal(err)
	}
	want := float64(len(samples)) / float64(rate)

	eventPage := srv.URL + "/bundles/" + f.cur + "/event?" + url.Values{"corpus": {e.Corpus}, "system": {e.System}, "task": {string(e.Tasks[0].Task)}, "i": {strconv.Itoa(i)}}.Encode()
	step("event", chromedp.Navigate(eventPage), chromedp.WaitVisible("#timeline"),
		poll(`(() => { const i = document.getElementById("timeline"); return i.complete && i.naturalWidth > 300 })()`),
		poll(`Array.from(document.querySelectorAll("audio")).every(a => a.readyState >= 1 && isFinite(a.duration))`),
		shot("event"))
	durations, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`Array.from(document.querySelectorAll("audio")).map(a => a.duration)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(durations) < 3 {
		t.Errorf("%d audio players, want the mix and every channel", len(durations))
	}
	for k, d := range durations {
		if math.Abs(d-want) > 0.01 {
			t.Errorf("player %d reports %.3f s, the conversation is %.3f s", k, d, want)
		}
	}

	step("diff", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(`form[action="/diff"]`),
		chromedp.SetValue(`select[name="old"]`, f.old), chromedp.SetValue(`select[name="new"]`, f.cur))
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Submit(`form[action="/diff"] button`))); err != nil {
		t.Fatalf("submit the diff form: %v", err)
	}
	step("diff page", chromedp.WaitVisible("#changes"), shot("diff"))
	if v := value(`document.getElementById("verdict").textContent`); !strings.Contains(v, "regression") {
		t.Errorf("the diff page's verdict is %q", v)
	}
	if rows := value(`String(document.querySelectorAll("#changes tbody tr").length)`); rows != strconv.Itoa(2*2*2) {
		t.Errorf("the diff compares %s system, corpus and task rows, want 8", rows)
	}
	t.Logf("screenshots in %s", dir)
}
