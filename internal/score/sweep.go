package score

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/floorbench/floorbench/internal/floor"
)

// SweepRow is the outcome of one candidate threshold over a whole split.
type SweepRow struct {
	Theta  float64
	Counts Counts
}

// Sweep scores probs against gold at every threshold in thetas (ascending)
// with the commit rule of DESIGN §3.2, summing counts and pooling latencies
// over conversations. It gives exactly what committing each track at each
// threshold with CommitTimes and scoring with ScoreTask gives, without
// rescanning every frame per threshold: a frame is a rising edge for the
// thresholds in [previous score, its score), so each track's edges are
// switched on and off once as the thresholds ascend, and the refractory walk
// jumps from one kept edge to the next through a bitset.
func Sweep(gold *floor.GoldSet, probs *ProbsFile, thetas []float64, p Params) ([]SweepRow, error) {
	if err := CheckProbs(probs, gold); err != nil {
		return nil, err
	}
	if !slices.IsSorted(thetas) {
		return nil, fmt.Errorf("sweep: thresholds must be ascending")
	}
	byID := make(map[string]*ConversationProbs, len(probs.Conversations))
	for i := range probs.Conversations {
		byID[probs.Conversations[i].ID] = &probs.Conversations[i]
	}
	refractory := RefractoryFrames(p.Refractory, probs.FrameRate)
	convs := make([]sweepConversation, len(gold.Conversations))
	for ci := range gold.Conversations {
		g := &gold.Conversations[ci]
		c := &convs[ci]
		c.matcher = NewMatcher(g.Task(probs.Task), p.TauPre, p.TauMax)
		for _, track := range byID[g.ID].Speakers {
			c.tracks = append(c.tracks, newEdgeTrack(track, thetas))
		}
		c.predictions = make([][]float64, len(c.tracks))
	}
	rows := make([]SweepRow, len(thetas))
	for j, theta := range thetas {
		row := &rows[j]
		row.Theta = theta
		for ci := range convs {
			c := &convs[ci]
			for k, t := range c.tracks {
				t.advance(j)
				c.predictions[k] = t.commit(c.predictions[k][:0], refractory, probs.FrameRate)
			}
			c.matcher.ScoreInto(c.predictions, &row.Counts)
		}
	}
	return rows, nil
}

type sweepConversation struct {
	matcher     *Matcher
	tracks      []*edgeTrack
	predictions [][]float64
}

// edgeTrack holds, for one score track, which frames are rising edges at the
// current threshold (a bitset), and the frames that become and stop being
// edges at each threshold index.
type edgeTrack struct {
	active          []uint64
	startAt, stopAt [][]int32
}

func newEdgeTrack(track []float64, thetas []float64) *edgeTrack {
	t := &edgeTrack{
		active:  make([]uint64, (len(track)+63)/64),
		startAt: make([][]int32, len(thetas)+1),
		stopAt:  make([][]int32, len(thetas)+1),
	}
	lowest := 0 // frame 0 is an edge at every threshold below its score
	for i, v := range track {
		if i > 0 {
			if v <= track[i-1] {
				continue
			}
			// Edge iff previous <= theta < v: thresholds from the first
			// candidate >= previous up to the last one < v.
			lowest, _ = slices.BinarySearch(thetas, track[i-1])
		}
		highest, _ := slices.BinarySearch(thetas, v)
		if lowest < highest {
			t.startAt[lowest] = append(t.startAt[lowest], int32(i))
			t.stopAt[highest] = append(t.stopAt[highest], int32(i))
		}
	}
	return t
}

// advance moves the edge set to threshold index j (called with j ascending).
func (t *edgeTrack) advance(j int) {
	for _, i := range t.startAt[j] {
		t.active[i>>6] |= 1 << (uint(i) & 63)
	}
	for _, i := range t.stopAt[j] {
		t.active[i>>6] &^= 1 << (uint(i) & 63)
	}
}

// commit appends the commit times of the current edges under the refractory.
func (t *edgeTrack) commit(out []float64, refractory int, fps float64) []float64 {
	for from := 0; ; {
		i := t.nextEdge(from)
		if i < 0 {
			return out
		}
		out = append(out, float64(i+1)/fps)
		from = i + refractory
	}
}

func (t *edgeTrack) nextEdge(from int) int {
	w := from >> 6
	if w >= len(t.active) {
		return -1
	}
	word := t.active[w] &^ (1<<(uint(from)&63) - 1)
	for {
		if word != 0 {
			return w<<6 + bits.TrailingZeros64(word)
		}
		w++
		if w >= len(t.active) {
			return -1
		}
		word = t.active[w]
	}
}

// OperatingPoint returns the index of the row with the highest recall among
// those whose fp_rate is defined and <= budget, the first in threshold order
// on a tie (DESIGN §3.3); false when no row is within the budget.
func OperatingPoint(rows []SweepRow, budget float64) (int, bool) {
	best := -1
	for i, r := range rows {
		fp := r.Counts.FPRate()
		if fp != fp || fp > budget {
			continue
		}
		// Only a strictly higher recall replaces the best, so a NaN recall
		// (a split without positives) keeps the first qualifying row.
		if best < 0 || r.Counts.Recall() > rows[best].Counts.Recall() {
			best = i
		}
	}
	return best, best >= 0
}

// CommitAll applies the commit rule at theta to every track of probs.
func CommitAll(probs *ProbsFile, theta, refractory float64) map[string][][]float64 {
	out := make(map[string][][]float64, len(probs.Conversations))
	for _, c := range probs.Conversations {
		preds := make([][]float64, len(c.Speakers))
		for k, track := range c.Speakers {
			preds[k] = CommitTimes(track, probs.FrameRate, theta, refractory)
		}
		out[c.ID] = preds
	}
	return out
}
