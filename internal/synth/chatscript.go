package synth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/floorbench/floorbench/internal/dialogue"
)

// ScriptWriter is stage 1: it writes one conversation's script from the
// conversation's script stream. TemplateScripts is the offline default;
// ChatScripts asks a language model.
type ScriptWriter interface {
	WriteScript(ctx context.Context, spec ConversationSpec, rng *rand.Rand) (Script, error)
}

// TemplateScripts writes scripts from the topic banks and sentence
// templates (WriteScript).
type TemplateScripts struct{}

// WriteScript is the package's WriteScript; it never fails.
func (TemplateScripts) WriteScript(_ context.Context, spec ConversationSpec, rng *rand.Rand) (Script, error) {
	return WriteScript(spec, rng), nil
}

// LinePlan is what one line of a chat-written script must be: its
// speaker, about how many words in how many sentences, and whether it
// ends in a question.
type LinePlan struct {
	Speaker   int
	Words     int
	Sentences int
	Question  bool
}

// ScriptPlan is everything of a script but its words: topic, personas
// and line plans, drawn as WriteScript draws them.
type ScriptPlan struct {
	Spec     ConversationSpec
	Personas []Persona
	Lines    []LinePlan
	topic    topic
}

// wordsPerSentence is the sentence length a line's sentence count is
// planned with: about the templates' sentences.
const wordsPerSentence = 11

// PlanScript draws a script's plan: a topic from the interaction type's
// bank, the personas, and lines of log-normal length with the style's
// mean and question share until their planned speaking time reaches the
// spec's length, each speaker chosen as WriteScript chooses.
func PlanScript(spec ConversationSpec, rng *rand.Rand) ScriptPlan {
	st := StyleOf(spec.Type)
	bank := topicBanks[spec.Type]
	p := ScriptPlan{Spec: spec, topic: bank[rng.IntN(len(bank))]}
	used := map[string]bool{}
	for k := 1; k <= spec.Speakers; k++ {
		name := names[rng.IntN(len(names))]
		for used[name] {
			name = names[rng.IntN(len(names))]
		}
		used[name] = true
		p.Personas = append(p.Personas, Persona{Speaker: k, Name: name})
	}
	var lines []Line // the speakers so far, for nextSpeaker
	planned, speaker := 0.0, 1+rng.IntN(spec.Speakers)
	for planned < spec.Seconds {
		secs := st.TurnSeconds * math.Exp(st.TurnSpread*rng.NormFloat64()-st.TurnSpread*st.TurnSpread/2)
		secs = min(max(secs, 1.2), 3*st.TurnSeconds)
		words := max(3, int(math.Round(secs*WordsPerSecond)))
		l := LinePlan{Speaker: speaker, Words: words, Sentences: max(1, (words+wordsPerSentence/2)/wordsPerSentence),
			Question: rng.Float64() < st.QuestionShare}
		p.Lines = append(p.Lines, l)
		lines = append(lines, Line{Speaker: speaker})
		planned += float64(words)/WordsPerSecond + st.GapMean
		speaker = nextSpeaker(rng, spec, speaker, lines)
	}
	return p
}

// maxTokens is the token limit of the plan's answer: about three tokens
// a word and twenty a line of JSON, twice over, so that only a runaway
// answer is cut off.
func (p ScriptPlan) maxTokens() int {
	n := 256
	for _, l := range p.Lines {
		n += 2 * (3*l.Words + 20)
	}
	return n
}

// Topic is the plan's topic title.
func (p ScriptPlan) Topic() string { return p.topic.Title }

// ChatPrompt is one request for a script: the system and user messages,
// the seed the model is asked to sample with, and which try of the
// conversation it is (a retried prompt says so, and so is a new request).
type ChatPrompt struct {
	System    string
	User      string
	Seed      uint64
	MaxTokens int // room for the planned lines, with a margin
	Attempt   int
}

// ChatAnswer is a model's answer to a ChatPrompt.
type ChatAnswer struct {
	Text      string
	Truncated bool // cut off at the token limit
}

// Chat answers chat prompts (the openai-chat backend, in package backend).
type Chat interface {
	Answer(ctx context.Context, p ChatPrompt) (ChatAnswer, error)
}

// ChatScripts writes scripts with a language model: the plan is drawn as
// the templates' is, the model writes the words, and every answer is
// validated against the plan (ParseScriptAnswer). A rejected answer is
// asked again, up to Attempts times in all.
type ChatScripts struct {
	Chat     Chat
	Attempts int // 0: DefaultChatAttempts
}

// DefaultChatAttempts is how many answers a conversation's script is asked
// for before the generation fails.
const DefaultChatAttempts = 3

// ErrRejectedAnswers is wrapped by the error of a conversation whose
// every answer was rejected.
var ErrRejectedAnswers = errors.New("answers failed validation")

// WriteScript asks the model for the conversation's lines.
func (w ChatScripts) WriteScript(ctx context.Context, spec ConversationSpec, rng *rand.Rand) (Script, error) {
	plan := PlanScript(spec, rng)
	seed := rng.Uint64()
	attempts := w.Attempts
	if attempts <= 0 {
		attempts = DefaultChatAttempts
	}
	var (
		last    error
		sources []string
	)
	for attempt := 1; attempt <= attempts; attempt++ {
		p := ChatPrompt{System: ScriptSystemPrompt, User: plan.UserPrompt(attempt), Seed: seed + uint64(attempt-1),
			MaxTokens: plan.maxTokens(), Attempt: attempt}
		a, err := w.Chat.Answer(ctx, p)
		if err != nil {
			return Script{}, fmt.Errorf("conversation %s: dialogue: %w", spec.ID, err)
		}
		if k, ok := w.Chat.(KeyedChat); ok {
			sources = append(sources, k.ChatKey(p))
		}
		if a.Truncated {
			last = errors.New("the answer was cut off at the token limit")
			continue
		}
		lines, err := ParseScriptAnswer(plan, a.Text)
		if err != nil {
			last = err
			continue
		}
		return Script{Spec: spec, Topic: plan.topic.Title, Personas: plan.Personas, Lines: lines, Sources: sources, topic: plan.topic}, nil
	}
	return Script{}, fmt.Errorf("conversation %s: dialogue: %d %w (last: %v)", spec.ID, attempts, ErrRejectedAnswers, last)
}

// ScriptSystemPrompt is the system message of every script prompt: the
// answer format (docs/corpora.md#prompt-design).
const ScriptSystemPrompt = `You write the dialogue of fictional spoken conversations for a speech corpus. ` +
	`Answer with one JSON object and nothing else, in this form: ` +
	`{"lines": [{"speaker": 1, "sentences": ["First sentence.", "Second sentence?"]}]}. ` +
	`Write exactly the lines asked for, in the order asked, each with the speaker number asked for. ` +
	`Each sentence is complete and ends with ".", "!" or "?"; a line asked to end with a question ends with a sentence ending in "?", ` +
	`and no other line ends with one. Write plain spoken English: no names before lines, no stage directions, ` +
	`no quotation marks, lists, emoji or markup.`

// typeDescriptions say what each interaction type is in a prompt.
var typeDescriptions = map[dialogue.InteractionType]string{
	dialogue.Casual:        "a casual chat between friends",
	dialogue.TaskOriented:  "a task-oriented conversation: the speakers work through practical decisions",
	dialogue.Instructional: "an instructional conversation: speaker 1 explains how to do something and the others ask and check",
	dialogue.Collaborative: "a collaborative conversation: the speakers build ideas together",
	dialogue.Argumentative: "an argumentative conversation: the speakers disagree and defend their views",
	dialogue.Narrative:     "a narrative conversation: speaker 1 tells a story and the others react and ask",
}

// UserPrompt is the user message of the plan's attempt-th prompt: the
// setting and one instruction per line.
func (p ScriptPlan) UserPrompt(attempt int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Write %s about %s, between %d people:", typeDescriptions[p.Spec.Type], p.topic.Title, len(p.Personas))
	for _, ps := range p.Personas {
		fmt.Fprintf(&b, " speaker %d is %s;", ps.Speaker, ps.Name)
	}
	fmt.Fprintf(&b, " they may mention %s.\n", strings.Join(p.topic.Things, ", "))
	fmt.Fprintf(&b, "Write exactly %d lines. A speaker may pause between the sentences of a line and go on, so every sentence must stand on its own. "+
		"Listeners' short reactions and interruptions are added later: do not write them.\n", len(p.Lines))
	for i, l := range p.Lines {
		fmt.Fprintf(&b, "Line %d: speaker %d, about %d words in %d sentence%s", i+1, l.Speaker, l.Words, l.Sentences, plural(l.Sentences))
		if l.Question {
			b.WriteString(", ending with a question")
		}
		b.WriteString(".\n")
	}
	if attempt > 1 {
		fmt.Fprintf(&b, "This is attempt %d: the previous answer did not follow these instructions exactly.\n", attempt)
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
