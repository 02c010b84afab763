package score

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
)

// randomGold makes one conversation's task gold with distinct anchor times
// per speaker, spans and exclusions away from the anchors.
func randomGold(rng *rand.Rand, speakers int) (floor.TaskGold, float64) {
	var g floor.TaskGold
	duration := 0.0
	for k := 1; k <= speakers; k++ {
		t := rng.Float64() * 2
		for range 1 + rng.IntN(12) {
			t += 0.3 + rng.Float64()*6
			switch rng.IntN(3) {
			case 0:
				g.Negatives = append(g.Negatives, floor.Span{Speaker: k, Start: t, End: t + rng.Float64()*1.5})
			case 1:
				g.Excluded = append(g.Excluded, floor.Span{Speaker: k, Start: t, End: t + rng.Float64()*0.2})
			default:
				g.Positives = append(g.Positives, floor.Anchor{Speaker: k, Time: t})
			}
			t += 1.6
		}
		duration = max(duration, t+5)
	}
	return g, duration
}

func randomPredictions(rng *rand.Rand, speakers int, duration float64) [][]float64 {
	out := make([][]float64, speakers)
	for k := range out {
		for t := rng.Float64(); t < duration; t += 0.05 + rng.Float64()*3 {
			out[k] = append(out[k], t)
		}
	}
	return out
}

func TestPerfectPredictorScoresRecallOneFPZero(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	for range 500 {
		speakers := 1 + rng.IntN(5)
		g, _ := randomGold(rng, speakers)
		preds := make([][]float64, speakers)
		for _, a := range g.Positives {
			preds[a.Speaker-1] = append(preds[a.Speaker-1], a.Time)
		}
		c := ScoreTask(&g, preds, paper)
		if c.FN != 0 || c.FP != 0 || (len(g.Positives) > 0 && c.Recall() != 1) {
			t.Fatalf("perfect predictor: %+v on %+v", c, g)
		}
		for _, l := range c.LatenciesMS {
			if l != 0 {
				t.Fatalf("perfect predictor latency %v", l)
			}
		}
	}
}

func TestSilentPredictorScoresZero(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 8))
	for range 200 {
		g, _ := randomGold(rng, 1+rng.IntN(5))
		c := ScoreTask(&g, nil, paper)
		if c.TP != 0 || c.FP != 0 || c.FN != len(g.Positives) || c.TN != len(g.Negatives) {
			t.Fatalf("silent predictor: %+v", c)
		}
	}
}

func TestCommonShiftShiftsEveryLatency(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	for range 300 {
		var g floor.TaskGold
		var preds [][]float64
		for k := 1; k <= 3; k++ {
			var times []float64
			for t := 1 + rng.Float64(); t < 60; t += 4 + rng.Float64()*3 {
				g.Positives = append(g.Positives, floor.Anchor{Speaker: k, Time: t})
				times = append(times, t+rng.Float64()*2)
			}
			preds = append(preds, times)
		}
		shift := -0.2 + rng.Float64()*0.9
		shifted := make([][]float64, len(preds))
		for k, times := range preds {
			for _, t := range times {
				shifted[k] = append(shifted[k], t+shift)
			}
		}
		before := ScoreTask(&g, preds, paper)
		after := ScoreTask(&g, shifted, paper)
		if before.TP != after.TP || before.TP != len(g.Positives) {
			t.Fatalf("shift %v changed matches: %+v vs %+v", shift, before, after)
		}
		for i := range before.LatenciesMS {
			if d := after.LatenciesMS[i] - before.LatenciesMS[i] - shift*1000; math.Abs(d) > 1e-6 {
				t.Fatalf("latency %v shifted to %v, want +%v ms", before.LatenciesMS[i], after.LatenciesMS[i], shift*1000)
			}
		}
	}
}

func TestAddingPredictionsNeverLowersRecall(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(10, 10))
	for range 1000 {
		speakers := 1 + rng.IntN(4)
		g, duration := randomGold(rng, speakers)
		base := randomPredictions(rng, speakers, duration)
		extra := randomPredictions(rng, speakers, duration)
		more := make([][]float64, speakers)
		for k := range more {
			more[k] = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(base[k]), extra[k]...))))
		}
		a := ScoreTask(&g, base, paper)
		b := ScoreTask(&g, more, paper)
		if b.TP < a.TP {
			t.Fatalf("adding predictions lowered TP from %d to %d", a.TP, b.TP)
		}
	}
}

func TestConversationOrderDoesNotMatter(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 11))
	gold := &floor.GoldSet{TauPre: tauPre, TauMax: tauMax}
	sub := &Submission{}
	for i := range 30 {
		tg, duration := randomGold(rng, 2)
		id := string(rune('a'+i%26)) + string(rune('0'+i/26))
		gold.Conversations = append(gold.Conversations, floor.ConversationGold{ID: id, Duration: duration, EOT: tg, INT: tg})
		preds := randomPredictions(rng, 2, duration)
		cp := ConversationPredictions{ID: id}
		for _, p := range preds {
			cp.Speakers = append(cp.Speakers, SpeakerPredictions{EOT: p, INT: p})
		}
		sub.Conversations = append(sub.Conversations, cp)
	}
	total := func() Counts {
		rows, err := ScoreSubmission(gold, sub, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		var c Counts
		for _, r := range rows {
			c.Add(r.EOT)
		}
		return c
	}
	want := total()
	for range 5 {
		rng.Shuffle(len(gold.Conversations), func(i, j int) {
			gold.Conversations[i], gold.Conversations[j] = gold.Conversations[j], gold.Conversations[i]
		})
		rng.Shuffle(len(sub.Conversations), func(i, j int) {
			sub.Conversations[i], sub.Conversations[j] = sub.Conversations[j], sub.Conversations[i]
		})
		got := total()
		if got.TP != want.TP || got.FN != want.FN || got.FP != want.FP || got.TN != want.TN || got.Latency() != want.Latency() {
			t.Fatalf("order changed the aggregate: %+v vs %+v", got, want)
		}
	}
}
