package agent

import (
	"errors"
	"math/rand/v2"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/swbd"
	"github.com/floorbench/floorbench/internal/synth"
)

// Hold pauses of START-during-hold scenarios are Switchboard's
// within-speaker pauses (as the generator's holds are) restricted to
// [holdMin, holdMax] s: a pause shorter than the half second after which
// voice agents commonly take a silence as a turn end tests nothing, and
// one longer than two seconds would be a turn end to a human listener too.
const (
	holdMin = 0.6
	holdMax = 2.0
)

// holdResumeWords is the least a holding speaker says after the pause, so
// that the hold trial's scored window (cue to valid_until_s) outlasts the
// default entry window.
const holdResumeWords = 14

// leadLines turns the script into the lead-in: the agent's own lines are
// dropped (the agent has not spoken yet) and what one participant then
// says twice in a row becomes one line. A script of the agent's lines only
// becomes one line of a participant drawn with rng.
func leadLines(lines []synth.Line, seat, speakers int, src source, rng *rand.Rand) []synth.Line {
	var out []synth.Line
	for _, l := range lines {
		switch {
		case l.Speaker == seat:
		case len(out) > 0 && out[len(out)-1].Speaker == l.Speaker:
			last := &out[len(out)-1]
			last.Sentences = append(last.Sentences, l.Sentences...)
		default:
			out = append(out, synth.Line{Speaker: l.Speaker, Sentences: append([]synth.Sentence(nil), l.Sentences...)})
		}
	}
	if len(out) == 0 {
		k := 1 + rng.IntN(speakers-1)
		if k >= seat {
			k++
		}
		out = []synth.Line{{Speaker: k, Sentences: []synth.Sentence{src.statement(rng)}}}
	}
	return out
}

// addressEOT makes the cue line end in a question to the agent by name:
// its own closing question when it has one (and that does not already
// name the agent), else a question of the source appended.
func addressEOT(l *synth.Line, name string, src source, rng *rand.Rand) {
	n := len(l.Sentences)
	if last := l.Sentences[n-1]; last.Question && !mentions(last.Text, name) {
		l.Sentences[n-1] = addressed(last, name)
		return
	}
	l.Sentences = append(l.Sentences, addressed(src.question(rng), name))
}

// holdSplit rewrites the cue line of a hold scenario as two stretches of
// speech around the pause: a statement that addresses the agent by name,
// then statements of at least holdResumeWords words. Neither ends in a
// question: the pause must be a hold a listener can tell, not a question
// to the agent that the speaker then answers themselves.
func holdSplit(l *synth.Line, name string, src source, rng *rand.Rand) (before, after []synth.Sentence) {
	var stmts []synth.Sentence
	for _, s := range l.Sentences {
		if !s.Question && !mentions(s.Text, name) {
			stmts = append(stmts, s)
		}
	}
	if len(stmts) == 0 {
		stmts = append(stmts, src.statement(rng))
	}
	before = []synth.Sentence{addressed(stmts[0], name)}
	after = stmts[1:]
	for words(after) < holdResumeWords {
		after = append(after, src.statement(rng))
	}
	l.Sentences = append(append([]synth.Sentence(nil), before...), after...)
	return before, after
}

// addressed is s spoken to the agent: "Nora, what do you think of ...?".
func addressed(s synth.Sentence, name string) synth.Sentence {
	return synth.Sentence{Text: name + ", " + lowerFirst(s.Text), Question: s.Question}
}

// lowerFirst lower-cases the first letter of a sentence now that it
// follows a name, unless its first word is "I" or one of its contractions.
func lowerFirst(s string) string {
	first, _, _ := strings.Cut(s, " ")
	if first == "I" || strings.HasPrefix(first, "I'") {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

func words(ss []synth.Sentence) int {
	n := 0
	for _, s := range ss {
		n += s.Words()
	}
	return n
}

// utterance joins sentences into one stretch of speech of speaker.
func utterance(speaker int, ss []synth.Sentence) synth.Utterance {
	texts := make([]string, len(ss))
	for i, s := range ss {
		texts[i] = s.Text
	}
	return synth.Utterance{Speaker: speaker, Text: strings.Join(texts, " "), Question: ss[len(ss)-1].Question}
}

// errNotOverlay is returned when a plan edit would drop a floor-holding
// act; the floor planner never gives the agent one (it has no lines).
var errNotOverlay = errors.New("scenario plan: a turn or claim would be dropped")

// withoutOverlays returns the plan without the overlay acts drop selects
// (backchannels, interjections and the like), with the Host and Follows
// references of the acts kept renumbered.
func withoutOverlays(p synth.FloorPlan, drop func(a synth.Act) bool) (synth.FloorPlan, error) {
	newIndex := make([]int, len(p.Acts))
	var acts []synth.Act
	for i, a := range p.Acts {
		newIndex[i] = len(acts)
		if !drop(a) {
			acts = append(acts, a)
			continue
		}
		if a.Kind == floor.Turn || a.Kind == floor.Interruption {
			return synth.FloorPlan{}, errNotOverlay
		}
	}
	for i := range acts {
		a := &acts[i]
		if a.Kind == floor.Turn {
			if a.Follows >= 0 {
				a.Follows = newIndex[a.Follows]
			}
		} else {
			a.Host = newIndex[a.Host]
		}
	}
	p.Acts = acts
	return p, nil
}

// lastTurn is the index of the plan's last TURN act: the cue turn.
func lastTurn(p synth.FloorPlan) int {
	for i := len(p.Acts) - 1; i >= 0; i-- {
		if p.Acts[i].Kind == floor.Turn {
			return i
		}
	}
	return -1
}

// truncatedPause draws a within-speaker pause from Switchboard's pauses
// restricted to [lo, hi] s, scaled like the generator's pauses for the
// interaction type: a quantile drawn uniformly between those of lo and hi.
func truncatedPause(st synth.Style, lo, hi float64, rng *rand.Rand) float64 {
	v := swbd.Pauses().Values
	ulo := float64(sort.SearchFloat64s(v, lo/st.PauseScale)) / float64(len(v)-1)
	uhi := float64(sort.SearchFloat64s(v, hi/st.PauseScale)) / float64(len(v)-1)
	p := st.PauseScale * swbd.Pauses().At(ulo+(min(uhi, 1)-ulo)*rng.Float64())
	return min(max(p, lo), hi)
}
