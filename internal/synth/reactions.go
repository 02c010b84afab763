package synth

import (
	"math/rand/v2"
	"slices"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/swbd"
)

// A holder's reactions to overlap, and the listeners' timing around them:
// how long the holder talks on over a claim, whether the claimer pauses
// before their turn, which backchannels go into the holder's pauses, where
// the holder cuts off and restarts. Stage 2 draws them (OverlapShares from
// their own stream); stage 5 places them on the samples.

// claimTiming draws how long the holder talks on after a claim's onset,
// from Switchboard's overlaps at floor transfers whatever the claim's
// length, and where the claim starts, as a fraction of the holder's
// turnSeconds of speech: between 35% and 70% of the way in, earlier when
// the holder needs the time to talk on, never before claimEarliest. An
// overlap the turn cannot hold is drawn again; after 8 draws the holder
// talks on to the end of the turn.
func claimTiming(turnSeconds float64, rng *rand.Rand) (keep, at float64) {
	for range 8 {
		keep = swbd.Overlaps().At(rng.Float64())
		latest := min(0.7, 1-(keep+claimMargin)/turnSeconds)
		if latest >= claimEarliest {
			earliest := min(0.35, latest)
			return keep, earliest + (latest-earliest)*rng.Float64()
		}
	}
	return (1 - claimEarliest) * turnSeconds, claimEarliest
}

// claimEarliest is the earliest a claim starts, as a fraction of the turn;
// claimMargin the speech the holder has left, as planned, after talking on
// for the drawn time (rendered turns are a little longer or shorter than
// planned; assembly moves a claim that does not fit earlier).
const (
	claimEarliest = 0.15
	claimMargin   = 0.3
)

// claimContinuation is the gap between a claim and the claimer's turn: a
// within-speaker pause (drawn from rng in any case) in a share ClaimPauses
// of claims; otherwise the claimer runs straight on, with no more than a
// word boundary's gap.
func claimContinuation(st Style, sh OverlapShares, rng, ov *rand.Rand) float64 {
	pause := pausePlan(st, rng)
	if ov.Float64() < sh.ClaimPauses {
		return pause
	}
	return wordGap + wordGapSpread*ov.Float64()
}

// wordGap and wordGapSpread bound the gap between a claim and a turn the
// claimer runs straight on into: 50 to 150 ms, below what Switchboard
// counts as a pause (its words were merged across gaps of 0.2 s) and above
// the 30 ms of silence `corpus check` wants outside every offset.
const (
	wordGap       = 0.05
	wordGapSpread = 0.1
)

// drawRestart draws a holder's cut-off and restart: it stops 0.1 to 0.4 s
// into the overlap (a beat or two), is silent for a Switchboard
// within-speaker pause of at most restartLongest, and says 0.15 to 0.4 s
// of what it said before the cut again.
func drawRestart(rng *rand.Rand) Restart {
	pauses := swbd.Pauses()
	return Restart{
		After:   0.1 + 0.3*rng.Float64(),
		Silence: pauses.At(rng.Float64() * pauses.Share(restartLongest)),
		Recycle: 0.15 + 0.25*rng.Float64(),
	}
}

// restartLongest is the longest restart silence: a drop-out of a few
// hundred milliseconds, not a pause for thought.
const restartLongest = 0.8

// reactionsTo prepares the reactions of line i's speaker to the speech
// over it: at most one restart per turn, none on a turn that is taken over
// (restartable false: the claim is its own reaction), and none at speech
// by the speaker of the turn after next (their overlay could meet that
// turn and be dropped, leaving a restart with no cause; assembly checks
// the next turn's speaker on the samples).
func (pl *planner) reactionsTo(i int, restartable bool) *reactions {
	r := &reactions{sh: pl.s.Spec.Overlap, ov: pl.ov, restartable: restartable}
	if i+2 < len(pl.s.Lines) {
		r.barred = pl.s.Lines[i+2].Speaker
	}
	return r
}

// reactions draws, from the overlap stream, where non-floor-taking speech
// over one turn goes and whether the holder restarts at it.
type reactions struct {
	sh          OverlapShares
	ov          *rand.Rand
	restartable bool
	barred      int
}

// react decides a's placement (a backchannel or non-content vocalisation
// into a pause of the holder's speech) or the holder's restart at it.
// Failed claims and speech inside holds are left as they are.
func (r *reactions) react(a *Act) {
	if a.Kind == floor.InterruptionAttempt || a.InHold > 0 {
		return
	}
	switch {
	case a.Kind != floor.NonFloorTakingInterruption && r.ov.Float64() < r.sh.BackchannelsInPauses:
		a.InPause, a.PauseAt = true, 0.05+0.45*r.ov.Float64()
	case r.ov.Float64() < r.sh.Restarts && r.restartable && a.Speaker != r.barred:
		a.Restart, r.restartable = drawRestart(r.ov), false
	}
}

// pauseFloorDB is how far below an utterance's loudest 2 ms frame its
// frames must stay to count as a pause: silence, not the quiet end of a
// word (which the -20 dB speech boundary still counts as speech).
const pauseFloorDB = -40

// speechPauses are the silences of at least floor.MinPause inside the
// host's utterances, in samples: where its rendered speech pauses between
// sentences and at commas (and where it cut off to restart).
func speechPauses(h placement) [][2]int {
	var out [][2]int
	for k, x := range h.clips {
		fr, thr := speechFrames(x)
		thr *= audio.FromDB(pauseFloorDB - speechFloorDB)
		quiet := -1
		for i, v := range fr {
			switch {
			case v <= thr && quiet < 0:
				quiet = i
			case v > thr && quiet >= 0:
				if (i-quiet)*boundaryFrame >= sec(floor.MinPause) {
					out = append(out, [2]int{h.starts[k] + quiet*boundaryFrame, h.starts[k] + i*boundaryFrame})
				}
				quiet = -1
			}
		}
	}
	return out
}

// pauseStart places an overlay of n samples PauseAt of the way into the
// pause of the host's speech nearest to s, where it would start over
// speech: a pause counts if the overlay starts 0.3 s or more into the
// host and ends before limit. With no such pause it stays at s.
func pauseStart(a Act, h placement, pauses [][2]int, limit, n, s int) int {
	best, found := s, false
	for _, p := range pauses {
		at := p[0] + int(a.PauseAt*float64(p[1]-p[0]))
		if at < h.start()+sec(0.3) || at+n > limit {
			continue
		}
		if !found || abs(at-s) < abs(best-s) {
			best, found = at, true
		}
	}
	return best
}

func abs(n int) int { return max(n, -n) }

// placeRestart places overlay i, at which its host cuts off and restarts,
// and moves the host's speech after the cut by the silence and the speech
// said again. When the host is not speaking where it would cut off, or the
// overlay would touch its own speaker's speech placed so far or the turn
// they speak next, it places nothing: the overlay is then placed like any
// other.
func placeRestart(p FloorPlan, pl []placement, i int, clips [][]float32) {
	a := p.Acts[i]
	s := overlayStart(a, pl[a.Host], nil, len(clips[0]))
	e := s + len(clips[0])
	touches := func(st, en int) bool { return s < en+collisionMargin && st < e+collisionMargin }
	for j := range i {
		o := p.Acts[j]
		if (o.Kind == floor.Turn || o.Kind == floor.Interruption) && o.Speaker == a.Speaker && touches(pl[j].start(), pl[j].end()) {
			return
		}
	}
	h, ok := restartHost(pl[a.Host], s, a.Restart)
	if !ok {
		return
	}
	for j := i + 1; j < len(p.Acts); j++ {
		if n := p.Acts[j]; n.Kind == floor.Turn && n.Follows == a.Host {
			// The earliest the next turn can start (turnStarts).
			if n.Speaker == a.Speaker && max(h.end()+sec(n.Gap), h.starts[len(h.starts)-1]+sec(0.3)) < e+collisionMargin {
				return
			}
			break
		}
	}
	pl[a.Host] = h
	pl[i] = placement{starts: []int{s}, clips: clips, kept: true, cause: true}
}

// restartTail is the least speech a holder has left after the point where
// it cuts off to restart.
const restartTail = 0.4

// restartHost returns the host cut off r.After after onset, silent for
// r.Silence and restarting at a speech onset about r.Recycle before the
// cut, its later speech moved. It reports false when the host is not
// speaking between onset and the cut or has less than restartTail of
// speech left.
func restartHost(h placement, onset int, r Restart) (placement, bool) {
	cut := onset + sec(r.After)
	k := -1
	for j, st := range h.starts {
		if st <= cut && cut < st+len(h.clips[j]) {
			k = j
		}
	}
	if k < 0 || h.starts[k]+len(h.clips[k])-cut < sec(restartTail) {
		return h, false
	}
	x := h.clips[k]
	head, ok := CutSpeech(x, cut-h.starts[k])
	if !ok || h.starts[k]+len(head) <= onset {
		return h, false
	}
	from := min(len(head), resumePoint(x, len(head)-sec(r.Recycle)))
	tail := append([]float32(nil), x[from:]...)
	fadeIn(tail)
	clip := append(append(head, make([]float32, sec(r.Silence))...), tail...)
	h.clips, h.starts = slices.Clone(h.clips), slices.Clone(h.starts)
	h.clips[k] = clip
	for j := k + 1; j < len(h.starts); j++ {
		h.starts[j] += len(clip) - len(x)
	}
	stop := h.starts[k] + len(head)
	h.restarts = append(slices.Clone(h.restarts), [2]int{stop, stop + sec(r.Silence)})
	h.full = h.end()
	return h, true
}
