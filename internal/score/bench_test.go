package score

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
)

// turnbenchDevSized builds a split the size of TurnBench dev: 38
// conversations of 12 minutes, 2 speakers, ~1,900 EOT anchors, ~2,400 hold
// spans, and 50 Hz score tracks shaped like a detector's: a low noisy floor,
// a bump after every anchor and false bumps in between.
func turnbenchDevSized(rng *rand.Rand) (*floor.GoldSet, *ProbsFile) {
	const fps, duration = 50.0, 720.0
	g := &floor.GoldSet{TauPre: 0.25, TauMax: 3}
	p := &ProbsFile{Task: floor.TaskEOT, FrameRate: fps}
	for c := range 38 {
		cg := floor.ConversationGold{ID: fmt.Sprint(c), Duration: duration}
		cp := ConversationProbs{ID: cg.ID}
		for k := 1; k <= 2; k++ {
			track := make([]float64, FrameCount(duration, fps))
			for i := range track {
				track[i] = 0.05 * rng.Float64()
			}
			bump := func(at, height float64) {
				for i := int(at * fps); i < min(len(track), int((at+0.6)*fps)); i++ {
					track[i] = math.Max(track[i], height*(1-math.Abs(float64(i)/fps-at-0.3)/0.3))
				}
			}
			for t := 2 + rng.Float64()*10; t < duration-5; t += 20 + rng.Float64()*18 {
				cg.EOT.Positives = append(cg.EOT.Positives, floor.Anchor{Speaker: k, Time: t})
				bump(t+rng.Float64()*0.8, 0.3+0.7*rng.Float64())
				hold := t + 2 + rng.Float64()*2
				cg.EOT.Negatives = append(cg.EOT.Negatives, floor.Span{Speaker: k, Start: hold, End: hold + 0.3 + rng.Float64()})
				if rng.IntN(2) == 0 {
					bump(hold, rng.Float64())
				}
			}
			cp.Speakers = append(cp.Speakers, track)
		}
		g.Conversations = append(g.Conversations, cg)
		p.Conversations = append(p.Conversations, cp)
	}
	return g, p
}

// BenchmarkSweepTurnBenchDev is the full 50 Hz dev sweep: candidates,
// every threshold committed and scored, the operating point.
func BenchmarkSweepTurnBenchDev(b *testing.B) {
	g, p := turnbenchDevSized(rand.New(rand.NewPCG(1, 1)))
	var tracks [][]float64
	anchors := 0
	for i, c := range p.Conversations {
		tracks = append(tracks, c.Speakers...)
		anchors += len(g.Conversations[i].EOT.Positives)
	}
	params := DefaultParams()
	b.ResetTimer()
	for range b.N {
		thetas := Candidates(tracks, params.Candidates)
		rows, err := Sweep(g, p, thetas, params)
		if err != nil {
			b.Fatal(err)
		}
		OperatingPoint(rows, params.FPBudgetDev)
		b.ReportMetric(float64(len(thetas)), "candidates")
	}
	b.ReportMetric(float64(anchors), "anchors")
}

// BenchmarkScoreSubmissionTurnBenchDev scores the predictions committed
// from the dev-sized tracks, the same times as EOT and as INT predictions;
// it reports how many it scores over both tasks (5,298).
func BenchmarkScoreSubmissionTurnBenchDev(b *testing.B) {
	g, p := turnbenchDevSized(rand.New(rand.NewPCG(2, 2)))
	committed := CommitAll(p, 0.2, 0.5)
	sub := &Submission{}
	n := 0
	for _, c := range g.Conversations {
		cp := ConversationPredictions{ID: c.ID}
		for _, times := range committed[c.ID] {
			cp.Speakers = append(cp.Speakers, SpeakerPredictions{EOT: times, INT: times})
			n += 2 * len(times)
		}
		sub.Conversations = append(sub.Conversations, cp)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := ScoreSubmission(g, sub, DefaultParams()); err != nil {
			b.Fatal(err)
		}
	}
	// After the loop: ResetTimer deletes the metrics reported before it.
	b.ReportMetric(float64(n), "predictions")
}

// BenchmarkBootstrap12Systems draws 10,000 resamples of 192 conversations
// and computes recall and fp_rate intervals for 12 systems on both tasks.
func BenchmarkBootstrap12Systems(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	systems := make([][]Counts, 24)
	for s := range systems {
		systems[s] = make([]Counts, 192)
		for i := range systems[s] {
			systems[s][i] = Counts{TP: rng.IntN(20), FN: rng.IntN(10), FP: rng.IntN(3), TN: rng.IntN(10)}
		}
	}
	b.ResetTimer()
	for range b.N {
		r := NewResamples(192, DefaultBootstrap, 42)
		for _, per := range systems {
			r.CIs(per)
		}
	}
}

// BenchmarkRank24Systems ranks 24 systems (the lab-scale sweep with its
// floor variants) under 10,000 resamples of 192 test conversations: each
// system's intervals and the 276 paired comparisons, recall within the
// default latency budgets included.
func BenchmarkRank24Systems(b *testing.B) {
	evals := randomEvaluations(24, 192, 3)
	p := DefaultParams()
	b.ResetTimer()
	for range b.N {
		Rank(evals, p, DefaultBootstrap, 42)
	}
}
