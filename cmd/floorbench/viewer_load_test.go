//go:build !floorbench_light

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/testenv"
)

// loadSetting is an integer knob of the viewer load test from the
// environment (FLOORBENCH_LOAD_CLIENTS, FLOORBENCH_LOAD_SECONDS), so the
// suite runs it bounded and docs/performance.md's measurement runs it at
// full size.
func loadSetting(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// loadBundle is the store folder and bundle the load test serves: those
// FLOORBENCH_LOAD_STORE and FLOORBENCH_LOAD_BUNDLE name (a full-preset
// bundle, for docs/performance.md), else a bundle of the tiny preset swept
// here with two systems.
func loadBundle(t *testing.T) (storeDir, id string) {
	storeDir, id = os.Getenv("FLOORBENCH_LOAD_STORE"), os.Getenv("FLOORBENCH_LOAD_BUNDLE")
	if storeDir != "" || id != "" {
		if storeDir == "" || id == "" {
			t.Fatal("FLOORBENCH_LOAD_STORE and FLOORBENCH_LOAD_BUNDLE go together")
		}
		return storeDir, id
	}
	tmp := t.TempDir()
	storeDir = filepath.Join(tmp, "store")
	spec := writeFile(t, tmp, "sweep.yaml", "corpora: [{name: tiny, generate: {preset: tiny, seed: 1}}]\n"+
		"systems: [{name: rms, builtin: rms}, {name: ep, builtin: rms-endpointer}]\nbootstrap: {resamples: 50, seed: 1}\n")
	stdout, stderr, code := run(t, "submit", spec, "--in-process", "-o", "json", "--config", "", "--store-dir", storeDir)
	if code != 0 {
		t.Fatalf("submit --in-process: %s", stderr)
	}
	var sub map[string]string
	decode(t, "submit", stdout, &sub)
	return storeDir, sub["bundle_id"]
}

// viewerPeakLimit is what `floorbench serve` may reach under the load.
const viewerPeakLimit = 300 << 20

// Many clients at once over every kind of page (the bundle page, the event
// browser, event pages, timelines, figures, whole channels, the mix whole
// and in 64 KB ranges) keep `floorbench serve` under 300 MB of resident
// memory: expensive requests take turns, ranges read only their bytes. No
// request fails but with 503 (busy, retry), and every page that answers
// 200 or 206 is whole.
func TestViewerMemoryIsBoundedUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test: skipped with -short")
	}
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		if testenv.Required() {
			t.Fatal("espeak-ng not found (scripts/setup.sh speech)")
		}
		t.Skip("espeak-ng not found; skipping (FLOORBENCH_REQUIRE_TOOLS=1 fails instead)")
	}
	clients, seconds := loadSetting(t, "FLOORBENCH_LOAD_CLIENTS", 200), loadSetting(t, "FLOORBENCH_LOAD_SECONDS", 10)
	storeDir, id := loadBundle(t)
	paths := loadPaths(t, storeDir, id)

	addr := testenv.Addr(testenv.FreePort(t))
	serve := exec.Command(binary, "serve", "--addr", addr, "--config", "", "--store-dir", storeDir)
	serve.Stderr = io.Discard
	out, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = serve.Process.Signal(syscall.SIGTERM); _ = serve.Wait() }()
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil { // "serving ... at ..."
		t.Fatal(err)
	}
	base := "http://" + addr
	idle := peakRSS(t, serve.Process.Pid)

	stats := hammer(base, paths, clients, time.Duration(seconds)*time.Second)
	peak := peakRSS(t, serve.Process.Pid)
	t.Logf("%d clients for %d s over %d paths: %d requests, %d refused busy (503), p50 %v, p99 %v, max %v; peak RSS %d MB (%d MB idle)",
		clients, seconds, len(paths), stats.n, stats.busy, stats.quantile(0.5), stats.quantile(0.99), stats.quantile(1), peak>>20, idle>>20)
	if len(stats.failures) > 0 {
		t.Errorf("%d failed requests, e.g. %v", len(stats.failures), stats.failures[:min(5, len(stats.failures))])
	}
	if peak > viewerPeakLimit {
		t.Errorf("peak RSS %d MB, want under %d MB", peak>>20, viewerPeakLimit>>20)
	}
	if stats.n == stats.busy {
		t.Errorf("every request was refused busy")
	}
}

// loadPaths are the pages of bundle id the clients ask for: each kind of
// page, for every event of the first evaluation and task.
func loadPaths(t *testing.T, storeDir, id string) []loadPath {
	data, err := os.ReadFile(filepath.Join(storeDir, "bundles", id, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res bundle.Results
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	figures, _ := filepath.Glob(filepath.Join(storeDir, "bundles", id, "figures", "*.svg"))
	b := "/bundles/" + id + "/"
	paths := []loadPath{{path: b}, {path: b + "events?page=1"}}
	for _, f := range figures {
		paths = append(paths, loadPath{path: b + "figures/" + filepath.Base(f)})
	}
	e := res.Evaluations[0]
	for _, task := range e.Tasks {
		for i, row := range task.Events {
			q := url.Values{"corpus": {e.Corpus}, "system": {e.System}, "task": {string(task.Task)}, "i": {strconv.Itoa(i)}}.Encode()
			a := url.Values{"corpus": {e.Corpus}, "conv": {row.Conversation}}.Encode()
			paths = append(paths, loadPath{path: b + "event?" + q}, loadPath{path: b + "timeline.svg?" + q},
				loadPath{path: b + "audio?" + a + "&channel=1"}, loadPath{path: b + "audio?" + a + "&channel=mix"},
				loadPath{path: b + "audio?" + a + "&channel=mix", rng: "bytes=0-65535"},
				loadPath{path: b + "audio?" + a + "&channel=2", rng: "bytes=100001-165536"})
		}
	}
	return paths
}

type loadPath struct{ path, rng string }

type loadStats struct {
	mu        sync.Mutex
	n, busy   int
	latencies []time.Duration
	failures  []string
}

func (s *loadStats) quantile(q float64) time.Duration {
	if len(s.latencies) == 0 {
		return 0
	}
	slices.Sort(s.latencies)
	return s.latencies[min(len(s.latencies)-1, int(q*float64(len(s.latencies))))]
}

// hammer has clients ask for paths in turn for d and records what they
// got; a client waits for each answer before asking again.
func hammer(base string, paths []loadPath, clients int, d time.Duration) *loadStats {
	stats := &loadStats{}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: time.Minute}
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := c; time.Now().Before(deadline); i += clients {
				p := paths[i%len(paths)]
				start := time.Now()
				code, err := fetch(client, base+p.path, p.rng)
				took := time.Since(start)
				stats.mu.Lock()
				stats.n++
				stats.latencies = append(stats.latencies, took)
				switch {
				case err != nil:
					stats.failures = append(stats.failures, fmt.Sprintf("%s: %v", p.path, err))
				case code == http.StatusServiceUnavailable:
					stats.busy++
				case code != http.StatusOK && code != http.StatusPartialContent:
					stats.failures = append(stats.failures, fmt.Sprintf("%s: %d", p.path, code))
				}
				stats.mu.Unlock()
			}
		})
	}
	wg.Wait()
	return stats
}

// fetch gets url (a range of it when rng is set) and reads the whole
// answer, which must be as long as it says.
func fetch(client *http.Client, u, rng string) (int, error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return 0, fmt.Errorf("%d of %d bytes", n, resp.ContentLength)
	}
	return resp.StatusCode, nil
}

// peakRSS is a running process's peak resident set size (VmHWM).
func peakRSS(t *testing.T, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}
