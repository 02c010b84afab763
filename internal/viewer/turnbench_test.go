package viewer_test

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/ingest/turnbench"
	"github.com/floorbench/floorbench/internal/ingest/turnbench/tbfixture"
	"github.com/floorbench/floorbench/internal/inprocess"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
)

// ingestedPrefix is where the TurnBench fixture corpus is copied into the
// store: a prefix of the user's choosing, not corpora/<hash>.
const ingestedPrefix = "ingested/turnbench"

// turnBenchBundle ingests a TurnBench corpus from parquet (two seeded dev
// dialogues and tb-900, a test conversation written by hand below), copies
// it into a new local store under ingestedPrefix, as a user copies an
// ingested corpus into the bucket, and runs a sweep that reads it there
// (`s3:` in the spec). It returns the store and the bundle id.
//
// tb-900 (12 s), every boundary agreed by the three annotators:
//   - speaker 1 talks 0.5-3.0 and 6.9-9.0, speaker 2 3.4-6.6;
//   - speaker 1's non-floor-taking interruption 5.5-6.1: INT excluded;
//   - speaker 2's backchannel 7.0-7.3: an INT negative;
//   - speaker 2's floor-taking interruption at 8.4: an INT positive.
func turnBenchBundle(t *testing.T) (store.Store, string) {
	t.Helper()
	root := t.TempDir()
	convs := []tbfixture.Conversation{
		tbfixture.Dialogue("tb-010", "dev", "casual", 1, 40),
		tbfixture.Dialogue("tb-011", "dev", "debate", 2, 40),
		{ID: "tb-900", Split: "test", Type: "casual", Duration: 12, Rate: 16000, Segments: []tbfixture.Segment{
			{Speaker: 1, Start: 0.5, End: 3.0, Label: "Normal Turn", Text: "so here we are"},
			{Speaker: 2, Start: 3.4, End: 6.6, Label: "Normal Turn", Text: "yes and then we went on"},
			{Speaker: 1, Start: 5.5, End: 6.1, Label: "Non-floor Taking Competitive Interruption", Text: "but"},
			{Speaker: 1, Start: 6.9, End: 9.0, Label: "Normal Turn", Text: "anyway as I said"},
			{Speaker: 2, Start: 7.0, End: 7.3, Label: "Continuer Backchannel", Text: "mhm"},
			{Speaker: 2, Start: 8.4, End: 10.5, Label: "Floor-taking Competitive Interruption", Text: "no wait"},
		}},
	}
	table, err := tbfixture.Build(convs)
	if err != nil {
		t.Fatal(err)
	}
	shard := filepath.Join(root, "turnbench.parquet")
	if err := table.Write(shard); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "corpus")
	if _, err := turnbench.Ingest(turnbench.Options{Parquet: []string{shard}, Out: dir}); err != nil {
		t.Fatal(err)
	}
	st, err := store.NewLocal(filepath.Join(root, "store"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		return store.PutBytes(ctx, st, keys.File(ingestedPrefix, filepath.ToSlash(rel)), data)
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.Parse("turnbench", []byte(`name: viewer-turnbench
corpora:
  - {name: turnbench, s3: `+ingestedPrefix+`}
systems:
  - {name: rms-endpointer, builtin: rms-endpointer, params: {eot_ramp_s: "1"}}
bootstrap: {resamples: 50, seed: 1}
concurrency: 2
`), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	in, err := sweep.Resolve(s, detect.Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	scratch := filepath.Join(root, "scratch")
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	id, err := inprocess.Run(ctx, in, &activities.Activities{Store: st, Scratch: scratch}, activities.Admission{})
	if err != nil {
		t.Fatal(err)
	}
	return st, id
}

// svgPath is a filled path of gonum's SVG: its points and its fill.
var svgPath = regexp.MustCompile(`<path d="([^"]*)"\s*style="([^"]*)"`)

// pathXs are the x coordinates of a path's points.
func pathXs(d string) []float64 {
	var xs []float64
	for _, pt := range regexp.MustCompile(`[ML]([-0-9.]+),([-0-9.]+)`).FindAllStringSubmatch(d, -1) {
		x, _ := strconv.ParseFloat(pt[1], 64)
		xs = append(xs, x)
	}
	return xs
}

// The live timeline of an event of an ingested TurnBench corpus, stored
// under a prefix of its own, draws the corpus's gold: the excluded
// interval near the event is shaded where its times fall on the axis.
// The event's audio is served from the same prefix.
func TestLiveTimelineDrawsExcludedIntervalsOfAnIngestedCorpus(t *testing.T) {
	st, id := turnBenchBundle(t)
	srv := fixture{store: st}.server(t)
	stored, err := st.List(context.Background(), "corpora/")
	if err != nil || len(stored) != 0 {
		t.Fatalf("the corpus must be in the store only under %s; corpora/ holds %v (%v)", ingestedPrefix, stored, err)
	}
	res := results(t, st, id)
	var e evaluate.Evaluation
	index := -1
	for _, ev := range res.Evaluations {
		for _, tk := range ev.Tasks {
			for i, row := range tk.Events {
				if tk.Task == "int" && row.Conversation == "tb-900" && row.Kind == "negative" && row.Start == 7.0 {
					e, index = ev, i
					e.Tasks = []evaluate.TaskResult{tk}
				}
			}
		}
	}
	if index < 0 {
		t.Fatalf("the bundle has no INT negative of tb-900 at 7.0 s: %+v", res.Evaluations)
	}

	resp, svg := get(t, srv, eventPath(id, e, index, "timeline.svg"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("timeline: %d %s", resp.StatusCode, svg)
	}
	// The window of a negative span is 2 s either side: 5.0-9.3 s. θ's
	// rule spans the panel's x axis, so its ends are 5.0 s and 9.3 s.
	const start, end = 5.0, 9.3
	var axis, excluded [][]float64
	for _, m := range svgPath.FindAllStringSubmatch(svg, -1) {
		xs := pathXs(m[1])
		switch {
		case strings.Contains(m[2], "stroke-dasharray") && len(xs) == 2 && strings.Contains(m[1], "L"):
			axis = append(axis, xs)
		case strings.Contains(m[2], "fill:#7F7F7F"): // excluded: #808080, translucent
			excluded = append(excluded, xs)
		}
	}
	if len(excluded) != 1 {
		t.Fatalf("%d excluded bands, want the one of 5.5-6.1 s on speaker 1:\n%s", len(excluded), svg)
	}
	// x of a time: left + (time - start) / (end - start) × width, with the
	// axis from the θ rule (horizontal, the longest dashed line).
	left, right := math.Inf(1), math.Inf(-1)
	for _, xs := range axis {
		left, right = min(left, xs[0], xs[1]), max(right, xs[0], xs[1])
	}
	x := func(sec float64) float64 { return left + (sec-start)/(end-start)*(right-left) }
	lo, hi := slices2(excluded[0])
	if math.Abs(lo-x(5.5)) > 0.5 || math.Abs(hi-x(6.1)) > 0.5 {
		t.Errorf("excluded band at x %.1f-%.1f, want %.1f-%.1f (5.5-6.1 s on an axis %.1f-%.1f)", lo, hi, x(5.5), x(6.1), left, right)
	}

	resp, page := get(t, srv, eventPath(id, e, index, "event"))
	if resp.StatusCode != http.StatusOK || strings.Contains(page, "holds no audio") || strings.Contains(page, "does not hold this bundle") {
		t.Errorf("event page: %d\n%s", resp.StatusCode, page)
	}
	audio := "/bundles/" + id + "/audio?" + url.Values{"corpus": {"turnbench"}, "conv": {"tb-900"}, "channel": {"2"}}.Encode()
	resp, wav := get(t, srv, audio)
	want, _ := store.GetBytes(context.Background(), st, ingestedPrefix+"/tb-900/speaker_2.wav")
	if resp.StatusCode != http.StatusOK || len(want) == 0 || wav != string(want) {
		t.Errorf("channel 2 of tb-900: %d, %d bytes, want the %d stored under %s", resp.StatusCode, len(wav), len(want), ingestedPrefix)
	}

	// Another corpus copied to the same prefix later is not the bundle's:
	// a new viewer draws the bundle's gold (no excluded interval) and says
	// why.
	ctx := context.Background()
	manifest, err := store.GetBytes(ctx, st, ingestedPrefix+"/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.PutBytes(ctx, st, ingestedPrefix+"/corpus.json", append(manifest, '\n')); err != nil {
		t.Fatal(err)
	}
	srv = fixture{store: st}.server(t)
	if _, svg := get(t, srv, eventPath(id, e, index, "timeline.svg")); strings.Contains(svg, "fill:#7F7F7F") {
		t.Error("the timeline draws the gold of a corpus that is not the bundle's")
	}
	if _, page := get(t, srv, eventPath(id, e, index, "event")); !strings.Contains(page, "does not hold this bundle's corpus") {
		t.Errorf("the event page does not say the corpus is missing:\n%s", page)
	}
}

// slices2 is the least and greatest of xs.
func slices2(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}
