package synth

import (
	"math/rand/v2"
	"strings"

	"github.com/floorbench/floorbench/internal/floor"
)

// wordBands is a distribution of utterance lengths in words: a share of
// draws in each band, uniform within it. The bands are the error anatomy's
// (1–3, 4–8, 9+ words; MPTB §F.8).
type wordBands struct {
	shares [3]float64
	ranges [3][2]int
}

func (b wordBands) draw(rng *rand.Rand) int {
	u := rng.Float64()
	k := 0
	for k < 2 && u >= b.shares[k] {
		u -= b.shares[k]
		k++
	}
	lo, hi := b.ranges[k][0], b.ranges[k][1]
	return lo + rng.IntN(hi-lo+1)
}

// The lengths of listener speech. They overlap on purpose: claims,
// failed claims and interjections all come in every length, so that a
// vocalisation's length says little about whether it takes the floor.
var (
	claimWords        = wordBands{[3]float64{0.27, 0.43, 0.30}, [3][2]int{{1, 3}, {4, 8}, {9, 14}}}
	attemptWords      = wordBands{[3]float64{0.35, 0.40, 0.25}, [3][2]int{{1, 3}, {4, 8}, {9, 15}}}
	interjectionWords = wordBands{[3]float64{0.30, 0.42, 0.28}, [3][2]int{{2, 3}, {4, 8}, {9, 16}}}
)

// listenerUtterance writes what a listener says for an overlay act of the
// given kind over a turn of hostWords words. Interjections and failed
// claims are at most about as long as the turn they are spoken over.
func listenerUtterance(w writer, kind floor.EventKind, hostWords int) string {
	switch kind {
	case floor.Backchannel:
		return pick(w.rng, backchannels)
	case floor.NonContent:
		return pick(w.rng, nonContent)
	case floor.InterruptionAttempt:
		return listenerText(w, min(attemptWords.draw(w.rng), max(2, hostWords*4/5)))
	}
	return listenerText(w, min(interjectionWords.draw(w.rng), max(2, hostWords*4/5)))
}

// shortByWords groups shortListener by word count (1, 2, 3).
var shortByWords = func() [4][]string {
	var out [4][]string
	for _, s := range shortListener {
		n := len(strings.Fields(s))
		out[n] = append(out[n], s)
	}
	return out
}()

// listenerText writes listener speech of about `words` words from the
// shared listener vocabulary: a short phrase up to three words, else an
// optional opener and topic clauses, cut to length (a speaker who is cut
// off or gives up stops mid-clause).
func listenerText(w writer, words int) string {
	if words <= 3 {
		return pick(w.rng, shortByWords[max(words, 1)])
	}
	var parts []string
	n := 0
	if w.rng.Float64() < 0.5 {
		o := pick(w.rng, listenerOpeners)
		parts, n = append(parts, o+","), len(strings.Fields(o))
	}
	for n < words {
		c := w.fill(pick(w.rng, listenerClauses), 0)
		parts = append(parts, c)
		n += len(strings.Fields(c))
	}
	f := strings.Fields(strings.Join(parts, " "))
	if len(f) > words+1 {
		f = f[:words]
	}
	text := strings.TrimRight(strings.Join(f, " "), ",")
	return capitalise(text)
}
