package agent

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/synth"
)

// source is the generator's text for one scenario beyond its lead-in:
// sentences and listener tokens written by synth's script writer and
// floor planner for a long conversation of the same design, which is
// never rendered. Scenario text is therefore the corpus's text: the same
// topic banks, templates and listener vocabulary.
type source struct {
	questions    []synth.Sentence
	statements   []synth.Sentence
	backchannels []string
	claims       []string
}

// sourceSeconds is the planned length of the conversation the source text
// is drawn from: long enough to hold several backchannels and successful
// claims at every interaction type's rates.
const sourceSeconds = 300

// sourceAttempts bounds the long conversations written before a source
// lacking one kind of text is an error.
const sourceAttempts = 8

// newSource writes the source text of scenario spec.ID. Nothing in it
// mentions the agent by name: the cue turn adds the address itself.
func newSource(seed uint64, spec synth.ConversationSpec, agentName string) (source, error) {
	long := spec
	long.Seconds = sourceSeconds
	for k := range sourceAttempts {
		script := synth.WriteScript(long, synth.StreamFor(seed, spec.ID, synth.Stage(fmt.Sprintf("agent-source-script-%d", k))))
		plan := synth.PlanFloor(script, synth.StreamFor(seed, spec.ID, synth.Stage(fmt.Sprintf("agent-source-floor-%d", k))))
		var s source
		for _, l := range script.Lines {
			for _, st := range l.Sentences {
				switch {
				case mentions(st.Text, agentName):
				case st.Question:
					s.questions = append(s.questions, st)
				default:
					s.statements = append(s.statements, st)
				}
			}
		}
		for _, a := range plan.Acts {
			switch {
			case mentions(a.Utterance.Text, agentName):
			case a.Kind == floor.Backchannel:
				s.backchannels = append(s.backchannels, a.Utterance.Text)
			case a.Kind == floor.Interruption:
				s.claims = append(s.claims, a.Utterance.Text)
			}
		}
		if len(s.questions) > 0 && len(s.statements) > 0 && len(s.backchannels) > 0 && len(s.claims) > 0 {
			return s, nil
		}
	}
	return source{}, fmt.Errorf("%s: %d long conversations of type %s held no backchannel, claim or question to draw from", spec.ID, sourceAttempts, spec.Type)
}

// mentions reports whether text names name as a word.
func mentions(text, name string) bool {
	return slices.Contains(strings.FieldsFunc(text, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}), name)
}

func (s source) question(rng *rand.Rand) synth.Sentence {
	return s.questions[rng.IntN(len(s.questions))]
}
func (s source) statement(rng *rand.Rand) synth.Sentence {
	return s.statements[rng.IntN(len(s.statements))]
}
func (s source) backchannel(rng *rand.Rand) string {
	return s.backchannels[rng.IntN(len(s.backchannels))]
}
func (s source) claim(rng *rand.Rand) string { return s.claims[rng.IntN(len(s.claims))] }
