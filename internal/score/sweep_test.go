package score

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
)

// randomSplit makes a gold set and matching probability tracks with the
// awkward shapes of real detectors: plateaus, exact ties with candidate
// values, zeros, single-frame spikes.
func randomSplit(rng *rand.Rand, convs, speakers int, fps float64) (*floor.GoldSet, *ProbsFile) {
	g := &floor.GoldSet{TauPre: tauPre, TauMax: tauMax}
	p := &ProbsFile{Task: floor.TaskEOT, FrameRate: fps}
	for c := range convs {
		duration := 20 + rng.Float64()*40
		cg := floor.ConversationGold{ID: fmt.Sprint("c", c), Duration: duration, SpeakerCount: speakers}
		for k := 1; k <= speakers; k++ {
			for t := rng.Float64() * 3; t < duration; t += 0.5 + rng.Float64()*4 {
				switch rng.IntN(3) {
				case 0:
					cg.EOT.Positives = append(cg.EOT.Positives, floor.Anchor{Speaker: k, Time: t})
				case 1:
					cg.EOT.Negatives = append(cg.EOT.Negatives, floor.Span{Speaker: k, Start: t, End: t + rng.Float64()*2})
				default:
					if rng.IntN(4) == 0 {
						cg.EOT.Excluded = append(cg.EOT.Excluded, floor.Span{Speaker: k, Start: t, End: t + rng.Float64()})
					}
				}
			}
		}
		g.Conversations = append(g.Conversations, cg)
		cp := ConversationProbs{ID: cg.ID}
		for range speakers {
			track := make([]float64, FrameCount(duration, fps))
			v := 0.0
			for i := range track {
				switch r := rng.IntN(20); {
				case r == 0:
					v = rng.Float64()
				case r == 1:
					v = float64(rng.IntN(100)) / 100 // on the grid
				case r == 2:
					v = 0
				case r == 3:
					track[i] = rng.Float64() // a one-frame spike
					continue
				}
				track[i] = v
			}
			cp.Speakers = append(cp.Speakers, track)
		}
		p.Conversations = append(p.Conversations, cp)
	}
	return g, p
}

// The edge-set sweep must give exactly what committing each track at each
// threshold and scoring it gives, under either negative window.
func TestSweepEqualsCommitThenScore(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 40 {
		fps := []float64{50, 12.5, 12.25, 10}[trial%4]
		params := DefaultParams()
		params.Refractory = []float64{2, 0.5, 0.01}[trial%3]
		params.NegativeWindow = NegativeWindows[trial%2]
		g, p := randomSplit(rng, 3, 1+trial%4, fps)
		var tracks [][]float64
		for _, c := range p.Conversations {
			tracks = append(tracks, c.Speakers...)
		}
		thetas := Candidates(tracks, 64)
		rows, err := Sweep(g, p, thetas, params)
		if err != nil {
			t.Fatal(err)
		}
		for j, theta := range thetas {
			var want Counts
			committed := CommitAll(p, theta, params.Refractory)
			for _, c := range g.Conversations {
				want.Add(ScoreTask(&c.EOT, committed[c.ID], params))
			}
			if !sameCounts(rows[j].Counts, want) {
				t.Fatalf("trial %d (%s) theta %v: sweep %+v, direct %+v", trial, params.NegativeWindow, theta, rows[j].Counts, want)
			}
			if want.Windows.Under(params.NegativeWindow) != (NegativeCounts{want.FP, want.TN}) {
				t.Fatalf("trial %d (%s) theta %v: fp/tn %d/%d, window counts %+v", trial, params.NegativeWindow, theta, want.FP, want.TN, want.Windows)
			}
		}
	}
}

// SweepDevTakingTracks sweeps as SweepDev does and leaves no track behind;
// SweepDev leaves its input as it was.
func TestSweepDevTakingTracks(t *testing.T) {
	t.Parallel()
	g, p := randomSplit(rand.New(rand.NewPCG(5, 6)), 4, 2, 50)
	params := DefaultParams()
	want, err := SweepDev(g, p, params)
	if err != nil {
		t.Fatal(err)
	}
	_, again := randomSplit(rand.New(rand.NewPCG(5, 6)), 4, 2, 50)
	if !reflect.DeepEqual(p, again) {
		t.Fatal("SweepDev changed its probabilities")
	}
	got, err := SweepDevTakingTracks(g, p, params)
	if err != nil {
		t.Fatal(err)
	}
	if got.OP != want.OP || len(got.Rows) != len(want.Rows) {
		t.Fatalf("taking tracks: %d rows, point %d; SweepDev: %d rows, point %d", len(got.Rows), got.OP, len(want.Rows), want.OP)
	}
	for j := range want.Rows {
		if g, w := got.Rows[j], want.Rows[j]; g.Theta != w.Theta || !sameCounts(g.Counts, w.Counts) || !sameCounts(g.Backchannel, w.Backchannel) {
			t.Fatalf("row %d: %+v, SweepDev %+v", j, g, w)
		}
	}
	for _, c := range p.Conversations {
		if len(c.Speakers) != 2 || c.Speakers[0] != nil || c.Speakers[1] != nil {
			t.Fatalf("conversation %s keeps its tracks", c.ID)
		}
	}
}

// The sweep shares its conversations out over the cores; its rows, down
// to the order of the pooled latencies, are the same on any number.
func TestSweepIsTheSameOnAnyNumberOfCores(t *testing.T) {
	t.Parallel()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	g, _ := randomSplit(rand.New(rand.NewPCG(9, 10)), 11, 3, 50)
	var want *DevSweep
	for _, procs := range []int{1, 2, 3, 8, 16} {
		runtime.GOMAXPROCS(procs)
		_, p := randomSplit(rand.New(rand.NewPCG(9, 10)), 11, 3, 50)
		got, err := SweepDevTakingTracks(g, p, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = got
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("on %d cores the sweep differs from one core's", procs)
		}
	}
	if want.Rows[len(want.Rows)/2].Counts.TP == 0 {
		t.Fatal("the split has no true positive to pool")
	}
}

func TestSweepRejectsMismatchedProbs(t *testing.T) {
	t.Parallel()
	g, p := randomSplit(rand.New(rand.NewPCG(3, 4)), 2, 2, 50)
	p.Conversations[1].Speakers[0] = p.Conversations[1].Speakers[0][1:]
	if _, err := Sweep(g, p, []float64{0.5}, DefaultParams()); err == nil {
		t.Fatal("a track one frame short must be rejected")
	}
	p.Conversations = p.Conversations[:1]
	if _, err := Sweep(g, p, []float64{0.5}, DefaultParams()); err == nil {
		t.Fatal("a missing conversation must be rejected")
	}
}

func sameCounts(a, b Counts) bool {
	return a.TP == b.TP && a.FN == b.FN && a.FP == b.FP && a.TN == b.TN && a.Windows == b.Windows && slices.Equal(a.LatenciesMS, b.LatenciesMS)
}

// false_int_rate (TurnBench's SweepRow.false_int_rate) scores the committed
// events against the INT negative spans alone: no positive claims or exempts
// a prediction, INT exclusions still hide it. Worked by hand at 10 Hz, a 2 s
// refractory and tau_pre 0.25:
//   - speaker 2 commits 2.1 s (frame 20, score 0.5) and 6.1 s (frame 60,
//     score 0.9); speaker 1 commits 8.2 s (frame 81, score 0.5);
//   - backchannels: A (spk 2, 2.0-2.5 s) fires on 2.1; B (spk 2, 6.0-6.5 s)
//     fires on 6.1; C (spk 1, 8.0-8.4 s) stays quiet, 8.2 lies in the INT
//     exclusion 7.9-8.5 s;
//   - so at theta 0.3: 2 of 3 spans fired; at theta 0.7 only 6.1 commits:
//     1 of 3.
//
// The INT task's own fp_rate differs: the interruption anchored at 5.9 s on
// speaker 2 claims 6.1, so B is no FP there (1 of 3 at theta 0.3, 0 at 0.7).
func TestSweepFalseINTRate(t *testing.T) {
	t.Parallel()
	cg := floor.ConversationGold{ID: "c", Duration: 10}
	cg.EOT.Positives = []floor.Anchor{{Speaker: 1, Time: 1.0}}
	cg.INT.Positives = []floor.Anchor{{Speaker: 2, Time: 5.9}}
	cg.INT.Negatives = []floor.Span{{Speaker: 2, Start: 2.0, End: 2.5}, {Speaker: 2, Start: 6.0, End: 6.5}, {Speaker: 1, Start: 8.0, End: 8.4}}
	cg.INT.Excluded = []floor.Span{{Speaker: 1, Start: 7.9, End: 8.5}}
	g := &floor.GoldSet{TauPre: tauPre, TauMax: tauMax, Conversations: []floor.ConversationGold{cg}}
	one, two := make([]float64, 100), make([]float64, 100)
	one[81], two[20], two[60] = 0.5, 0.5, 0.9
	params := DefaultParams()
	for _, c := range []struct {
		task   floor.Task
		fpRate [2]float64
	}{{floor.TaskEOT, [2]float64{0, 0}}, {floor.TaskINT, [2]float64{1.0 / 3, 0}}} {
		p := &ProbsFile{Task: c.task, FrameRate: 10, Conversations: []ConversationProbs{{ID: "c", Speakers: [][]float64{one, two}}}}
		rows, err := Sweep(g, p, []float64{0.3, 0.7}, params)
		if err != nil {
			t.Fatal(err)
		}
		for j, want := range []float64{2.0 / 3, 1.0 / 3} {
			if got := rows[j].FalseINTRate(); got != want {
				t.Errorf("%s theta %v: false_int_rate %v, want %v", c.task, rows[j].Theta, got, want)
			}
			if c.task == floor.TaskEOT {
				continue // EOT gold here has no negatives: fp_rate is undefined
			}
			if got := rows[j].Counts.FPRate(); got != c.fpRate[j] {
				t.Errorf("%s theta %v: fp_rate %v, want %v", c.task, rows[j].Theta, got, c.fpRate[j])
			}
		}
	}
}
