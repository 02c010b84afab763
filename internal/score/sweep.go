package score

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/floorbench/floorbench/internal/floor"
)

// SweepRow is the outcome of one candidate threshold over a whole split.
// Backchannel scores the same commits against the INT task's negative spans
// alone (no positives, the INT exclusions): its FPRate is TurnBench's
// false_int_rate, the share of backchannels and non-content sounds a
// detector fired on, whichever task its scores are for.
type SweepRow struct {
	Theta       float64
	Counts      Counts
	Backchannel Counts
}

// FalseINTRate is the share of backchannel spans that fired at this
// threshold (NaN when the split has none).
func (r SweepRow) FalseINTRate() float64 { return r.Backchannel.FPRate() }

// Sweep scores probs against gold at every threshold in thetas (ascending)
// with the commit rule of docs/protocol.md#commit-rule, summing counts and pooling latencies
// over conversations. It gives exactly what committing each track at each
// threshold with CommitTimes and scoring with ScoreTask gives, without
// rescanning every frame per threshold: a frame is a rising edge for the
// thresholds in [previous score, its score), so each track's edges are
// switched on and off once as the thresholds ascend, and the refractory walk
// jumps from one kept edge to the next through a bitset.
func Sweep(gold *floor.GoldSet, probs *ProbsFile, thetas []float64, p Params) ([]SweepRow, error) {
	return sweep(gold, probs, thetas, p, false)
}

// sweep is Sweep; take drops each track from probs once its edge rows exist
// (SweepDevTakingTracks).
func sweep(gold *floor.GoldSet, probs *ProbsFile, thetas []float64, p Params, take bool) ([]SweepRow, error) {
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
	fps := probs.FrameRate
	refractory := RefractoryFrames(p.Refractory, fps)
	ranks := newRankIndex(thetas)
	convs := make([]sweepConversation, len(gold.Conversations))
	chunks(len(convs), func(_, lo, hi int) {
		for ci := lo; ci < hi; ci++ {
			g := &gold.Conversations[ci]
			c := &convs[ci]
			c.matcher = NewMatcher(g.Task(probs.Task), p)
			c.backchannels = NewMatcher(&floor.TaskGold{Negatives: g.INT.Negatives, Excluded: g.INT.Excluded}, p)
			speakers := byID[g.ID].Speakers
			for k, track := range speakers {
				c.tracks = append(c.tracks, newEdgeTrack(track, thetas, ranks))
				if take {
					speakers[k] = nil
				}
			}
			c.predictions = make([][]float64, len(c.tracks))
		}
	})
	// From here on the sweep reads only the edge rows: it keeps no
	// reference to the score tracks, so a caller that drops them too frees
	// them while the sweep runs (take has freed them already).
	byID, probs = nil, nil
	return sweepRows(convs, thetas, refractory, fps), nil
}

// sweepRows scores every conversation at every threshold. Consecutive
// ranges of conversations are swept on every core, each into rows of its
// own; the rows are then added range by range, in order, so that counts
// and the order of pooled latencies are those of one pass over the
// conversations.
func sweepRows(convs []sweepConversation, thetas []float64, refractory int, fps float64) []SweepRow {
	parts := make([][]SweepRow, len(convs)+1)
	n := chunks(len(convs), func(i, lo, hi int) {
		rows := make([]SweepRow, len(thetas))
		for j := range thetas {
			row := &rows[j]
			for ci := lo; ci < hi; ci++ {
				c := &convs[ci]
				for k, t := range c.tracks {
					t.advance(j)
					c.predictions[k] = t.commit(c.predictions[k][:0], refractory, fps)
				}
				c.matcher.ScoreInto(c.predictions, &row.Counts)
				c.backchannels.ScoreInto(c.predictions, &row.Backchannel)
			}
		}
		parts[i] = rows
	})
	rows := make([]SweepRow, len(thetas))
	for j, theta := range thetas {
		rows[j].Theta = theta
		for _, part := range parts[:n] {
			rows[j].Counts.Add(part[j].Counts)
			rows[j].Backchannel.Add(part[j].Backchannel)
		}
	}
	return rows
}

type sweepConversation struct {
	matcher, backchannels *Matcher
	tracks                []*edgeTrack
	predictions           [][]float64
}

// edgeTrack holds, for one score track, which frames are rising edges at the
// current threshold (a bitset), and the frames that become and stop being
// edges at each threshold index (compressed rows: the frames of index j are
// frames[offsets[j]:offsets[j+1]]).
type edgeTrack struct {
	active               []uint64
	startOffsets, starts []int32
	stopOffsets, stops   []int32
}

func newEdgeTrack(track []float64, thetas []float64, ranks *rankIndex) *edgeTrack {
	// rank[i]: how many thresholds lie below track[i]. Frame i is an edge
	// iff track[i-1] <= theta < track[i], i.e. for the threshold indices
	// rank[i-1] .. rank[i]-1; frame 0 for every index below rank[0].
	rank := make([]int32, len(track))
	for i, v := range track {
		if i > 0 && v == track[i-1] {
			rank[i] = rank[i-1]
			continue
		}
		rank[i] = int32(ranks.below(v))
	}
	t := &edgeTrack{
		active:       make([]uint64, (len(track)+63)/64),
		startOffsets: make([]int32, len(thetas)+2),
		stopOffsets:  make([]int32, len(thetas)+2),
	}
	edge := func(i int) (lo, hi int32) {
		if i == 0 {
			return 0, rank[0]
		}
		return rank[i-1], rank[i]
	}
	for i := range track {
		if lo, hi := edge(i); lo < hi {
			t.startOffsets[lo+1]++
			t.stopOffsets[hi+1]++
		}
	}
	for j := 1; j < len(t.startOffsets); j++ {
		t.startOffsets[j] += t.startOffsets[j-1]
		t.stopOffsets[j] += t.stopOffsets[j-1]
	}
	n := t.startOffsets[len(t.startOffsets)-1]
	t.starts, t.stops = make([]int32, n), make([]int32, n)
	nextStart := slices.Clone(t.startOffsets)
	nextStop := slices.Clone(t.stopOffsets)
	for i := range track {
		if lo, hi := edge(i); lo < hi {
			t.starts[nextStart[lo]] = int32(i)
			nextStart[lo]++
			t.stops[nextStop[hi]] = int32(i)
			nextStop[hi]++
		}
	}
	return t
}

// advance moves the edge set to threshold index j (called with j ascending).
func (t *edgeTrack) advance(j int) {
	for _, i := range t.starts[t.startOffsets[j]:t.startOffsets[j+1]] {
		t.active[i>>6] |= 1 << (uint(i) & 63)
	}
	for _, i := range t.stops[t.stopOffsets[j]:t.stopOffsets[j+1]] {
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

// RowLatencies are each row's TP latency percentiles (Counts.Latency),
// the rows shared out over the cores: a sweep's hundreds of rows each sort
// their thousands of latencies.
func RowLatencies(rows []SweepRow) []Latency {
	out := make([]Latency, len(rows))
	chunks(len(rows), func(_, lo, hi int) {
		for j := lo; j < hi; j++ {
			out[j] = rows[j].Counts.Latency()
		}
	})
	return out
}

// OperatingPoint returns the index of the row with the highest recall among
// those whose fp_rate is defined and <= budget, the first in threshold order
// on a tie (docs/protocol.md#sweep-and-operating-point); false when no row is within the budget.
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

// rankIndex answers "how many thresholds are below v" for scores in [0, 1]
// in constant time on average: a table of where each 1/4096 bucket of
// [0, 1] starts among the thresholds, refined by a short walk.
type rankIndex struct {
	thetas []float64
	bucket []int32
}

const rankBuckets = 4096

func newRankIndex(thetas []float64) *rankIndex {
	r := &rankIndex{thetas: thetas, bucket: make([]int32, rankBuckets+1)}
	for b := range r.bucket {
		j, _ := slices.BinarySearch(thetas, float64(b)/rankBuckets)
		r.bucket[b] = int32(j)
	}
	return r
}

// below returns the index of the first threshold >= v.
func (r *rankIndex) below(v float64) int {
	b := int(v * rankBuckets)
	if b < 0 || b > rankBuckets || v != v {
		j, _ := slices.BinarySearch(r.thetas, v)
		return j
	}
	// The bucket's start is a hint; rounding in v*rankBuckets may put it one
	// threshold off either way, so walk to the exact position.
	j := int(r.bucket[b])
	for j > 0 && r.thetas[j-1] >= v {
		j--
	}
	for j < len(r.thetas) && r.thetas[j] < v {
		j++
	}
	return j
}
