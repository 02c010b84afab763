package floor

import (
	"cmp"
	"slices"
)

// SpeechHangover is how long a speaker counts as speaking after their
// speech stops when silences are read from an event log: the hangover of
// the voice activity the corpus audit reads (docs/protocol.md#corpus-audit).
const SpeechHangover = 0.2

// runLookback mirrors the audit's gate: a speech run begins in overlap when
// another speaker speaks within this long before its onset.
const runLookback = 0.5

// SilenceThresholds are the silences, in seconds, at which SilenceShares
// counts its shares.
var SilenceThresholds = []float64{0.13, 0.2, 0.3, 0.4, 0.6}

// SilenceShares says what an event log predicts for the audit's
// cross-channel "holder silence" rule (fire once the others have been
// silent θ into an overlapping run): for each threshold, the share of INT
// positives (claims) inside whose claimer's speech every other speaker is
// silent that long within tau_max of the onset, where the rule is credited,
// and the share of INT negatives inside which they are, where it is charged
// under the span window.
type SilenceShares struct {
	Claims        int       `json:"claims"`
	Negatives     int       `json:"negatives"`
	Thresholds    []float64 `json:"thresholds_s"`
	ClaimShare    []float64 `json:"claim_share"`
	NegativeShare []float64 `json:"negative_share"`
}

// NewSilenceShares counts claims' and negatives' longest silences of the
// others (OthersSilences) at every SilenceThresholds entry. It returns nil
// when there are no claims.
func NewSilenceShares(claims, negatives []float64) *SilenceShares {
	if len(claims) == 0 {
		return nil
	}
	s := &SilenceShares{Claims: len(claims), Negatives: len(negatives), Thresholds: slices.Clone(SilenceThresholds)}
	for _, th := range SilenceThresholds {
		s.ClaimShare = append(s.ClaimShare, shareAtLeast(claims, th))
		s.NegativeShare = append(s.NegativeShare, shareAtLeast(negatives, th))
	}
	return s
}

func shareAtLeast(v []float64, th float64) float64 {
	if len(v) == 0 {
		return 0
	}
	n := 0
	for _, x := range v {
		if x >= th-1e-9 {
			n++
		}
	}
	return float64(n) / float64(len(v))
}

// OthersSilences reads from an event log, for every INTERRUPTION (a claim)
// and every INT negative (backchannel, non-floor-taking interruption,
// non-content), the longest time for which every other speaker is silent
// while the vocaliser speaks in a run that began in overlap: within
// [onset, onset + tauMax] for a claim, within the vocalisation for a
// negative. Speech is every event's extent less its holds and restarts,
// and counts on for SpeechHangover after it stops. The speech engines' own
// pauses inside an utterance are not in the log, so this is what the
// design puts there, not what a voice activity detector hears.
func OthersSilences(events []Event, tauMax float64) (claims, negatives []float64) {
	speech := speechBySpeaker(events)
	for _, e := range events {
		switch e.Kind {
		case Interruption:
			claims = append(claims, longestOthersSilence(speech, e.Speaker, e.Start, e.Start+tauMax))
		case Backchannel, NonFloorTakingInterruption, NonContent:
			negatives = append(negatives, longestOthersSilence(speech, e.Speaker, e.Start, e.End))
		}
	}
	return claims, negatives
}

// interval is a stretch [lo, hi] of seconds.
type interval struct{ lo, hi float64 }

// speechBySpeaker is each speaker's speech, extended by SpeechHangover
// and merged.
func speechBySpeaker(events []Event) map[int][]interval {
	out := map[int][]interval{}
	for _, e := range events {
		for _, p := range eventSpeech(e) {
			out[e.Speaker] = append(out[e.Speaker], interval{p.lo, p.hi + SpeechHangover})
		}
	}
	for k, v := range out {
		out[k] = merge(v)
	}
	return out
}

// eventSpeech is an event's extent less its holds and restarts.
func eventSpeech(e Event) []interval {
	var gaps []interval
	for _, h := range e.Holds {
		gaps = append(gaps, interval{h.Start, h.End})
	}
	for _, r := range e.Restarts {
		gaps = append(gaps, interval{r.Start, r.End})
	}
	slices.SortFunc(gaps, func(a, b interval) int { return cmp.Compare(a.lo, b.lo) })
	var out []interval
	at := e.Start
	for _, g := range gaps {
		if g.lo > at {
			out = append(out, interval{at, g.lo})
		}
		at = max(at, g.hi)
	}
	if e.End > at {
		out = append(out, interval{at, e.End})
	}
	return out
}

func merge(v []interval) []interval {
	slices.SortFunc(v, func(a, b interval) int { return cmp.Compare(a.lo, b.lo) })
	var out []interval
	for _, x := range v {
		if n := len(out); n > 0 && x.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, x.hi)
			continue
		}
		out = append(out, x)
	}
	return out
}

// longestOthersSilence is the longest stretch inside [from, to] in which
// speaker k speaks in a run that began in overlap and no other speaker
// speaks.
func longestOthersSilence(speech map[int][]interval, k int, from, to float64) float64 {
	var others []interval
	for j, v := range speech {
		if j != k {
			others = append(others, v...)
		}
	}
	others = merge(others)
	best := 0.0
	for _, run := range speech[k] {
		lo, hi := max(run.lo, from), min(run.hi, to)
		if hi <= lo || !intersects(others, interval{run.lo - runLookback, run.lo}) {
			continue
		}
		best = max(best, longestGap(others, interval{lo, hi}))
	}
	return best
}

func intersects(v []interval, x interval) bool {
	for _, u := range v {
		if u.lo <= x.hi && x.lo <= u.hi {
			return true
		}
	}
	return false
}

// longestGap is the longest stretch of x that no interval of v (merged,
// in order) covers.
func longestGap(v []interval, x interval) float64 {
	best, at := 0.0, x.lo
	for _, u := range v {
		if u.hi <= at || u.lo >= x.hi {
			continue
		}
		best = max(best, u.lo-at)
		at = max(at, u.hi)
	}
	return max(best, x.hi-at)
}
