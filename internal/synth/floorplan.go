package synth

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/swbd"
)

// Utterance is one stretch of speech to render.
type Utterance struct {
	Speaker  int
	Text     string
	Question bool // ends in a question
}

// Act is one entry of the floor plan: an event of docs/formats.md#event-log with symbolic
// timing. Exact times exist only after rendering (stage 5 lays the acts
// out on the samples); everything else about the event is decided here.
type Act struct {
	Kind    floor.EventKind
	Speaker int

	// TURN: the speech segments, with a hold pause after every segment
	// but the last, and how the turn ends.
	Segments []Utterance
	Holds    []float64
	Ending   floor.TurnEnding

	// TURN placement: it starts Gap seconds after the end of act Follows
	// (-1: the conversation's start); a negative gap overlaps that act.
	Follows int
	Gap     float64

	// Every other kind: the one utterance, placed on a host TURN at
	// fraction At of the host's extent, or inside the host's hold InHold
	// (1-based; 0: in speech) at fraction At of the hold.
	Utterance Utterance
	Host      int
	At        float64
	InHold    int

	// BACKCHANNEL and NON_CONTENT: spoken into the pause of the host's
	// speech nearest to At (a silence inside one of its utterances),
	// PauseAt of the way into it, rather than over speech.
	InPause bool
	PauseAt float64

	// Non-floor-taking speech over the host's speech: the host cuts off
	// and restarts (zero: it talks through).
	Restart Restart

	// INTERRUPTION: seconds the host keeps talking after the claim's
	// onset before it gives up the floor.
	Keep float64
}

// Restart is a holder's reaction to being overlapped by non-floor-taking
// speech: it stops After seconds into the overlap, is silent for Silence
// seconds and restarts the same turn, saying the last Recycle seconds
// before the cut again.
type Restart struct {
	After, Silence, Recycle float64
}

// FloorPlan is stage 2's output.
type FloorPlan struct {
	Spec ConversationSpec
	Acts []Act
	Lead float64 // silence before the first turn
	Tail float64 // silence after the last speech
}

// contestedShare is the share of holds a listener vocalises into; with the
// holds that overlays and failed claims reach by chance it gives MPTB's
// ~15% (§F.8: 28 of 186 test holds).
const contestedShare = 0.07

// yielderBackchannel is the share of handovers after which the speaker who
// just yielded vocalises again early in the next turn (mostly a
// backchannel): a silent channel after a turn end is likely, not certain.
const yielderBackchannel = 0.12

// attemptInHold is the share of failed claims on a turn with holds that
// start inside a hold: the holder went quiet, someone tried, the holder
// went on, so "the holder went quiet" is evidence of a handover, not proof.
const attemptInHold = 0.5

// holdQuestions end the clause before a hold: a speaker who asks this is
// not handing over the floor, which makes the pause a hard EOT negative.
var holdQuestions = []string{"you know what I mean?", "how do I put this?", "where was I?", "what is the word?", "right?", "and guess what?"}

// PlanFloor decides the event log of a scripted conversation. The
// reactions to overlap that OverlapShares govern (backchannels in pauses,
// restarts, pauses after claims) are drawn from their own stream, ov, so
// that changing a share changes those reactions and nothing else.
func PlanFloor(s Script, rng, ov *rand.Rand) FloorPlan {
	pl := planner{s: s, st: StyleOf(s.Spec.Type), rng: rng, ov: ov,
		w: writer{rng: rng, typ: s.Spec.Type, topic: s.topic, personas: s.Personas}}
	pl.p = FloorPlan{Spec: s.Spec, Lead: 0.5 + 0.5*rng.Float64(), Tail: 0.6 + 0.6*rng.Float64()}
	follows, afterClaim := -1, false
	for i := range s.Lines {
		follows, afterClaim = pl.turn(i, follows, afterClaim)
	}
	return pl.p
}

// planner holds what PlanFloor draws with and the plan so far.
type planner struct {
	s       Script
	st      Style
	rng, ov *rand.Rand
	w       writer
	p       FloorPlan
}

// turn plans line i, following act follows (a claim if afterClaim), with
// what is said over it, and returns the act the next line follows.
func (pl *planner) turn(i, follows int, afterClaim bool) (int, bool) {
	line, rng := pl.s.Lines[i], pl.rng
	t := Act{Kind: floor.Turn, Speaker: line.Speaker, Ending: floor.Yielded, Follows: follows}
	switch {
	case follows < 0:
	case afterClaim:
		t.Gap = claimContinuation(pl.st, pl.s.Spec.Overlap, rng, pl.ov)
	default:
		t.Gap = handoverOffset(pl.st, lastSegmentSeconds(pl.p.Acts[follows]), rng)
	}
	t.Segments, t.Holds = segment(line, pl.st, pl.s.Spec.holdScale(), pl.w)
	cycle := float64(line.Words())/WordsPerSecond + pl.st.GapMean
	pl.p.Acts = append(pl.p.Acts, t)
	host := len(pl.p.Acts) - 1

	// A successful interruption needs a next line by someone else and
	// a turn without holds (a claim inside a hold would be a handover).
	claimAt, keep := 1.0, 0.0 // where the claim starts, as a fraction of the turn (1: no claim)
	interrupted := i+1 < len(pl.s.Lines) && len(t.Holds) == 0 && cycle > 2 &&
		rng.Float64() < pl.st.Interruptions*cycle/60*interruptBoost
	if interrupted {
		keep, claimAt = claimTiming(float64(line.Words())/WordsPerSecond, rng)
	}
	r := pl.reactionsTo(i, !interrupted)
	pl.overlays(host, line.Words(), cycle, claimAt, r)
	if yielder := yielderOf(pl.p.Acts, follows, afterClaim); yielder > 0 && rng.Float64() < yielderBackchannel {
		// Seconds into this turn, as a share of its planned length.
		at := (0.3 + 1.2*rng.Float64()) / max(cycle, 1)
		kind := floor.Backchannel
		if rng.Float64() < 0.2 {
			kind = floor.NonFloorTakingInterruption
		}
		if at < min(0.8, claimAt-0.12) {
			pl.overlay(Act{Kind: kind, Speaker: yielder, Host: host, At: at}, line.Words(), r)
		}
	}
	if !interrupted {
		return host, false
	}
	pl.p.Acts[host].Ending = floor.Interrupted
	next := pl.s.Lines[i+1].Speaker
	words := claimWords.draw(rng)
	pl.p.Acts = append(pl.p.Acts, Act{Kind: floor.Interruption, Speaker: next, Host: host, At: claimAt,
		Keep: keep, Utterance: Utterance{Speaker: next, Text: listenerText(pl.w, words)}})
	return len(pl.p.Acts) - 1, true
}

// overlays plans the listeners' speech over turn host, a line of
// hostWords words (up to the claim at claimAt, if any), at the interaction
// type's rates, and the vocalisations that contest its holds.
func (pl *planner) overlays(host, hostWords int, cycle, claimAt float64, r *reactions) {
	rng, t := pl.rng, pl.p.Acts[host]
	listeners := others(pl.s.Spec.Speakers, t.Speaker)
	for _, k := range []struct {
		kind   floor.EventKind
		perMin float64
	}{{floor.Backchannel, pl.st.Backchannels}, {floor.NonFloorTakingInterruption, pl.st.Interjections},
		{floor.NonContent, pl.st.NonContent}, {floor.InterruptionAttempt, pl.st.Attempts}} {
		for range poisson(rng, k.perMin*cycle/60) {
			at := 0.15 + 0.65*rng.Float64()
			if at > claimAt-0.12 {
				continue // listeners do not talk over the claim
			}
			a := Act{Kind: k.kind, Speaker: listeners[rng.IntN(len(listeners))], Host: host, At: at}
			if k.kind == floor.InterruptionAttempt && len(t.Holds) > 0 && rng.Float64() < attemptInHold {
				a.InHold, a.At = 1+rng.IntN(len(t.Holds)), 0.1+0.5*rng.Float64()
			}
			pl.overlay(a, hostWords, r)
		}
	}
	for h := range t.Holds {
		if rng.Float64() < contestedShare {
			kind := floor.Backchannel
			who := listeners[rng.IntN(len(listeners))]
			if rng.Float64() < 0.3 {
				kind = floor.NonContent
			}
			pl.overlay(Act{Kind: kind, Speaker: who, Host: host, InHold: h + 1, At: 0.15 + 0.35*rng.Float64()}, hostWords, nil)
		}
	}
}

// overlay adds a listener's act over its host (a line of hostWords words)
// with its words and, unless r is nil, the host's reaction to it.
func (pl *planner) overlay(a Act, hostWords int, r *reactions) {
	if r != nil {
		r.react(&a)
	}
	a.Utterance = Utterance{Speaker: a.Speaker, Text: listenerUtterance(pl.w, a.Kind, hostWords)}
	pl.p.Acts = append(pl.p.Acts, a)
}

// yielderOf is the speaker who yielded the floor to the turn that follows
// act follows (0: none — the first turn, or a turn after a claim).
func yielderOf(acts []Act, follows int, afterClaim bool) int {
	if follows < 0 || afterClaim {
		return 0
	}
	return acts[follows].Speaker
}

// interruptBoost calibrates the per-turn claim probability against the
// rendered corpus: turns that cannot be interrupted (the last, those with
// holds) lower the realised rate, turns longer than planned raise it; this
// value brings the mptb preset to the paper's 367 claims.
const interruptBoost = 1.2

// pausePlan draws a within-speaker pause (a hold, the pause between a
// claim and the claimer's turn) from Switchboard's pauses.
func pausePlan(st Style, rng *rand.Rand) float64 {
	return st.PauseScale * swbd.Pauses().At(rng.Float64())
}

// handoverOffset draws the offset of a turn from the end of the previous
// one from Switchboard's floor-transfer offsets (negative: the new turn
// starts in overlap). An overlap longer than most of the previous
// speaker's last stretch of speech would start the turn inside an earlier
// one, so such draws are drawn again.
func handoverOffset(st Style, prevSeconds float64, rng *rand.Rand) float64 {
	var off float64
	for range 8 {
		off = st.OffsetShift + swbd.Offsets().At(rng.Float64())
		if -off <= 0.7*prevSeconds {
			return off
		}
	}
	return -0.7 * prevSeconds
}

// lastSegmentSeconds is the planned length of an act's last stretch of
// speech.
func lastSegmentSeconds(a Act) float64 {
	u := a.Utterance
	if a.Kind == floor.Turn {
		u = a.Segments[len(a.Segments)-1]
	}
	return float64(len(strings.Fields(u.Text))) / WordsPerSecond
}

// segment splits a line into speech segments around its hold pauses: a
// holding turn pauses at one sentence boundary, and at each other one
// with probability extraHold. It draws from the writer's stream.
func segment(line Line, st Style, scale float64, w writer) ([]Utterance, []float64) {
	rng := w.rng
	join := func(ss []Sentence) Utterance {
		u := Utterance{Speaker: line.Speaker}
		for i, s := range ss {
			if i > 0 {
				u.Text += " "
			}
			u.Text += s.Text
			u.Question = s.Question
		}
		return u
	}
	n := len(line.Sentences)
	if n < 2 || rng.Float64() >= st.HoldShare*holdBoost*scale {
		return []Utterance{join(line.Sentences)}, nil
	}
	first := 1 + rng.IntN(n-1)
	var cuts []int
	for b := 1; b < n; b++ {
		if b == first || rng.Float64() < extraHold {
			cuts = append(cuts, b)
		}
	}
	var segs []Utterance
	var holds []float64
	from := 0
	for _, c := range cuts {
		u := join(line.Sentences[from:c])
		if !u.Question && rng.Float64() < holdQuestionShare {
			// Half are tag questions, half content questions from the bank
			// turn-final questions come from, so the words before a pause
			// do not tell a hold from a turn end.
			q := pick(rng, holdQuestions)
			if rng.Float64() < 0.5 {
				q = w.fill(pick(rng, questions[w.typ]), line.Speaker) + "?"
			}
			u.Text += " " + capitalise(q)
			u.Question = true
		}
		segs = append(segs, u)
		holds = append(holds, pausePlan(st, rng))
		from = c
	}
	return append(segs, join(line.Sentences[from:])), holds
}

// holdBoost compensates for one-sentence lines, which cannot hold
// (calibrated like interruptBoost, against the paper's 241 holds);
// extraHold is the chance of a further hold at each other sentence
// boundary of a holding turn; holdQuestionShare the share of holds
// after a question.
const (
	holdBoost         = 1.18
	extraHold         = 0.3
	holdQuestionShare = 0.3
)

func others(n, speaker int) []int {
	var out []int
	for k := 1; k <= n; k++ {
		if k != speaker {
			out = append(out, k)
		}
	}
	return out
}

// poisson draws a Poisson count with mean lambda (Knuth's method; the
// means here are small).
func poisson(rng *rand.Rand, lambda float64) int {
	l, k, p := math.Exp(-lambda), 0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}
