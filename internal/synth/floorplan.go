package synth

import (
	"math"
	"math/rand/v2"

	"github.com/floorbench/floorbench/internal/floor"
)

// Utterance is one stretch of speech to render.
type Utterance struct {
	Speaker  int
	Text     string
	Question bool // ends in a question
}

// Act is one entry of the floor plan: an event of DESIGN §2 with symbolic
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

	// INTERRUPTION: seconds the host keeps talking after the claim's
	// onset before it gives up the floor.
	Keep float64
}

// FloorPlan is stage 2's output.
type FloorPlan struct {
	Spec ConversationSpec
	Acts []Act
	Lead float64 // silence before the first turn
	Tail float64 // silence after the last speech
}

// contestedShare is the share of holds a listener vocalises into; with the
// holds that overlays reach by chance it gives MPTB's ~15% (§F.8: 28 of
// 186 test holds).
const contestedShare = 0.07

// holdQuestions end the clause before a hold: a speaker who asks this is
// not handing over the floor, which makes the pause a hard EOT negative.
var holdQuestions = []string{"you know what I mean?", "how do I put this?", "where was I?", "what is the word?", "right?", "and guess what?"}

// PlanFloor decides the event log of a scripted conversation.
func PlanFloor(s Script, rng *rand.Rand) FloorPlan {
	st := StyleOf(s.Spec.Type)
	p := FloorPlan{Spec: s.Spec, Lead: 0.5 + 0.5*rng.Float64(), Tail: 0.6 + 0.6*rng.Float64()}
	follows, gapAfterClaim := -1, false
	for i, line := range s.Lines {
		turn := Act{Kind: floor.Turn, Speaker: line.Speaker, Ending: floor.Yielded, Follows: follows}
		switch {
		case follows < 0:
			turn.Gap = 0
		case gapAfterClaim:
			turn.Gap = 0.08 + 0.17*rng.Float64()
		case rng.Float64() < st.OverlapShare:
			turn.Gap = -(0.15 + 0.3*rng.Float64())
		default:
			turn.Gap = min(max(st.GapMean+st.GapSD*rng.NormFloat64(), 0.05), 1.5)
		}
		turn.Segments, turn.Holds = segment(line, st, s.Spec.holdScale(), rng)
		cycle := float64(line.Words())/WordsPerSecond + st.GapMean
		p.Acts = append(p.Acts, turn)
		host := len(p.Acts) - 1

		// A successful interruption needs a next line by someone else and
		// a turn without holds (a claim inside a hold would be a handover).
		claimAt := 1.0 // where the claim starts, as a fraction of the turn (1: no claim)
		var next *Line
		if i+1 < len(s.Lines) {
			next = &s.Lines[i+1]
		}
		interrupted := next != nil && len(turn.Holds) == 0 && cycle > 2 &&
			rng.Float64() < st.Interruptions*cycle/60*interruptBoost
		if interrupted {
			claimAt = 0.35 + 0.35*rng.Float64()
		}
		listeners := others(s.Spec.Speakers, line.Speaker)
		overlay := func(kind floor.EventKind, perMin float64, texts []string) {
			for range poisson(rng, perMin*cycle/60) {
				at := 0.15 + 0.65*rng.Float64()
				if at > claimAt-0.12 {
					continue // listeners do not talk over the claim
				}
				who := listeners[rng.IntN(len(listeners))]
				p.Acts = append(p.Acts, Act{Kind: kind, Speaker: who, Host: host, At: at,
					Utterance: Utterance{Speaker: who, Text: pick(rng, texts)}})
			}
		}
		overlay(floor.Backchannel, st.Backchannels, backchannels)
		overlay(floor.NonFloorTakingInterruption, st.Interjections, interjections)
		overlay(floor.NonContent, st.NonContent, nonContent)
		overlay(floor.InterruptionAttempt, st.Attempts, attempts)
		for h := range turn.Holds {
			if rng.Float64() < contestedShare {
				who := listeners[rng.IntN(len(listeners))]
				kind, texts := floor.Backchannel, backchannels
				if rng.Float64() < 0.3 {
					kind, texts = floor.NonContent, nonContent
				}
				p.Acts = append(p.Acts, Act{Kind: kind, Speaker: who, Host: host, InHold: h + 1, At: 0.15 + 0.35*rng.Float64(),
					Utterance: Utterance{Speaker: who, Text: pick(rng, texts)}})
			}
		}
		follows, gapAfterClaim = host, false
		if interrupted {
			p.Acts[host].Ending = floor.Interrupted
			p.Acts = append(p.Acts, Act{Kind: floor.Interruption, Speaker: next.Speaker, Host: host, At: claimAt,
				Keep: 0.4 + 0.8*rng.Float64(), Utterance: Utterance{Speaker: next.Speaker, Text: pick(rng, claims)}})
			follows, gapAfterClaim = len(p.Acts)-1, true
		}
	}
	return p
}

// interruptBoost calibrates the per-turn claim probability against the
// rendered corpus: turns that cannot be interrupted (the last, those with
// holds) lower the realised rate, turns longer than planned raise it; this
// value brings the mptb preset to the paper's 367 claims.
const interruptBoost = 1.2

// segment splits a line into speech segments around its hold pauses.
func segment(line Line, st Style, scale float64, rng *rand.Rand) ([]Utterance, []float64) {
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
	cut := 1 + rng.IntN(n-1)
	first := join(line.Sentences[:cut])
	if rng.Float64() < 0.3 {
		first.Text += " " + capitalise(pick(rng, holdQuestions))
		first.Question = true
	}
	hold := 0.6 + 1.0*rng.Float64()
	return []Utterance{first, join(line.Sentences[cut:])}, []float64{hold}
}

// holdBoost compensates for one-sentence lines, which cannot hold
// (calibrated like interruptBoost, against the paper's 241 holds).
const holdBoost = 1.35

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
