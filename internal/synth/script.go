package synth

import (
	"math"
	"math/rand/v2"
	"strings"
	"unicode"

	"github.com/floorbench/floorbench/internal/dialogue"
)

// WordsPerSecond is the speaking rate the script writer plans with: the
// measured mean of the voice inventory's espeak-ng and flite renderings.
const WordsPerSecond = 3.55

// Persona is one participant of a scripted conversation.
type Persona struct {
	Speaker int // from 1
	Name    string
}

// Sentence is one clause-final unit of a turn.
type Sentence struct {
	Text     string
	Question bool
}

// Words counts the sentence's words.
func (s Sentence) Words() int { return len(strings.Fields(s.Text)) }

// Line is one turn of the main floor sequence: who speaks and what.
type Line struct {
	Speaker   int
	Sentences []Sentence
}

// Words counts the line's words.
func (l Line) Words() int {
	n := 0
	for _, s := range l.Sentences {
		n += s.Words()
	}
	return n
}

// Script is stage 1's output: the personas, the topic and the main floor
// sequence. Listener tokens (backchannels, claims) are drawn later by the
// floor planner from the same lexicons.
type Script struct {
	Spec     ConversationSpec
	Topic    string
	Personas []Persona
	Lines    []Line
	// Sources are the cache keys of the chat answers the script was
	// written from (none for templates).
	Sources []string

	topic topic // what listener speech may mention (the floor planner's text)
}

// WriteScript writes a conversation's lines until their planned speaking
// time (words at WordsPerSecond plus gaps) reaches the spec's length.
func WriteScript(spec ConversationSpec, rng *rand.Rand) Script {
	st := StyleOf(spec.Type)
	bank := topicBanks[spec.Type]
	tp := bank[rng.IntN(len(bank))]
	s := Script{Spec: spec, Topic: tp.Title, topic: tp}
	used := map[string]bool{}
	for k := 1; k <= spec.Speakers; k++ {
		name := names[rng.IntN(len(names))]
		for used[name] {
			name = names[rng.IntN(len(names))]
		}
		used[name] = true
		s.Personas = append(s.Personas, Persona{Speaker: k, Name: name})
	}
	w := writer{rng: rng, typ: spec.Type, topic: tp, personas: s.Personas}
	planned, speaker := 0.0, 1+rng.IntN(spec.Speakers)
	for planned < spec.Seconds {
		// Log-normal turn length with the style's mean.
		secs := st.TurnSeconds * math.Exp(st.TurnSpread*rng.NormFloat64()-st.TurnSpread*st.TurnSpread/2)
		secs = min(max(secs, 1.2), 3*st.TurnSeconds)
		line := w.line(speaker, int(math.Round(secs*WordsPerSecond)), rng.Float64() < st.QuestionShare)
		s.Lines = append(s.Lines, line)
		planned += float64(line.Words())/WordsPerSecond + st.GapMean
		speaker = nextSpeaker(rng, spec, speaker, s.Lines)
	}
	return s
}

// nextSpeaker picks who talks next: never the current speaker; in
// instructional and narrative talk speaker 1 (the instructor, the
// storyteller) takes the floor back more often; elsewhere the previous
// speaker is favoured, as in A-B-A exchanges.
func nextSpeaker(rng *rand.Rand, spec ConversationSpec, cur int, lines []Line) int {
	lead := spec.Type == dialogue.Instructional || spec.Type == dialogue.Narrative
	if lead && cur != 1 && rng.Float64() < 0.6 {
		return 1
	}
	if len(lines) >= 2 && rng.Float64() < 0.4 {
		if prev := lines[len(lines)-2].Speaker; prev != cur {
			return prev
		}
	}
	k := 1 + rng.IntN(spec.Speakers-1)
	if k >= cur {
		k++
	}
	return k
}

// writer fills templates for one conversation.
type writer struct {
	rng      *rand.Rand
	typ      dialogue.InteractionType
	topic    topic
	personas []Persona
}

// line writes about `words` words for speaker, ending in a question when
// asked to.
func (w writer) line(speaker, words int, question bool) Line {
	l := Line{Speaker: speaker}
	opener := ""
	if w.rng.Float64() < 0.5 {
		opener = openers[w.rng.IntN(len(openers))] + ", "
	}
	var q Sentence
	if question {
		q = Sentence{Text: capitalise(w.fill(pick(w.rng, questions[w.typ]), speaker)) + "?", Question: true}
	}
	// Statements until the next one would overshoot by more than half.
	for len(l.Sentences) == 0 || l.Words()+q.Words() < words {
		text := w.fill(pick(w.rng, statements[w.typ]), speaker)
		if len(l.Sentences) == 0 {
			text = opener + text
		}
		st := Sentence{Text: capitalise(text) + "."}
		if len(l.Sentences) > 0 && l.Words()+q.Words()+st.Words()/2 > words {
			break
		}
		l.Sentences = append(l.Sentences, st)
	}
	if question {
		l.Sentences = append(l.Sentences, q)
	}
	return l
}

// fill replaces the slots of a template.
func (w writer) fill(tmpl string, speaker int) string {
	thing := pick(w.rng, w.topic.Things)
	other := pick(w.rng, w.topic.Things)
	for other == thing {
		other = pick(w.rng, w.topic.Things)
	}
	name := names[w.rng.IntN(len(names))]
	if len(w.personas) > 1 {
		// Mention another participant by name now and then.
		p := w.personas[w.rng.IntN(len(w.personas))]
		if p.Speaker != speaker {
			name = p.Name
		}
	}
	r := strings.NewReplacer("{thing}", thing, "{other}", other, "{name}", name,
		"{day}", pick(w.rng, days), "{num}", pick(w.rng, nums))
	return r.Replace(tmpl)
}

func pick(rng *rand.Rand, xs []string) string { return xs[rng.IntN(len(xs))] }

func capitalise(s string) string {
	r := []rune(s)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return string(r)
}
