package synth

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on a chat-written script's text (docs/corpora.md#prompt-design).
const (
	maxSentenceWords = 45  // a longer "sentence" is a runaway
	maxSentenceBytes = 400 // the same in bytes
	extraSentences   = 3   // a line may have this many sentences more than asked
)

// ParseScriptAnswer reads a model's answer to a script prompt and checks
// it against the plan: one JSON object (optionally inside a Markdown code
// fence) with exactly the planned lines, each by its planned speaker,
// of 1 to Sentences+3 sentences, within half to twice (plus four) the
// planned words, ending in a question exactly when planned; every
// sentence non-empty, with a letter, no markup or control characters and
// at most 45 words. Errors name the line and what is wrong, never quoting
// the answer.
func ParseScriptAnswer(plan ScriptPlan, answer string) ([]Line, error) {
	obj, err := jsonObject(answer)
	if err != nil {
		return nil, err
	}
	var a struct {
		Lines []struct {
			Speaker   int      `json:"speaker"`
			Sentences []string `json:"sentences"`
		} `json:"lines"`
	}
	if err := json.Unmarshal([]byte(obj), &a); err != nil {
		return nil, errors.New(`the answer is not an object of the form {"lines": [{"speaker": N, "sentences": [...]}]}`)
	}
	if len(a.Lines) != len(plan.Lines) {
		return nil, fmt.Errorf("%d lines, want %d", len(a.Lines), len(plan.Lines))
	}
	lines := make([]Line, len(a.Lines))
	for i, al := range a.Lines {
		l, err := checkLine(plan.Lines[i], al.Speaker, al.Sentences)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		lines[i] = l
	}
	return lines, nil
}

// jsonObject is the answer's JSON object: the text from its first "{" to
// its last "}", which drops a code fence or words around it.
func jsonObject(answer string) (string, error) {
	if !utf8.ValidString(answer) {
		return "", errors.New("the answer is not UTF-8")
	}
	i, j := strings.IndexByte(answer, '{'), strings.LastIndexByte(answer, '}')
	if i < 0 || j < i {
		return "", errors.New("the answer holds no JSON object")
	}
	return answer[i : j+1], nil
}

func checkLine(want LinePlan, speaker int, sentences []string) (Line, error) {
	if speaker != want.Speaker {
		return Line{}, fmt.Errorf("speaker %d, want %d", speaker, want.Speaker)
	}
	if len(sentences) < 1 || len(sentences) > want.Sentences+extraSentences {
		return Line{}, fmt.Errorf("%d sentences, want 1 to %d", len(sentences), want.Sentences+extraSentences)
	}
	l := Line{Speaker: speaker}
	for k, s := range sentences {
		st, err := checkSentence(s)
		if err != nil {
			return Line{}, fmt.Errorf("sentence %d: %w", k+1, err)
		}
		l.Sentences = append(l.Sentences, st)
	}
	lo, hi := max(1, (want.Words+1)/2), 2*want.Words+4
	if n := l.Words(); n < lo || n > hi {
		return Line{}, fmt.Errorf("%d words, want %d to %d", n, lo, hi)
	}
	if q := l.Sentences[len(l.Sentences)-1].Question; q != want.Question {
		if want.Question {
			return Line{}, errors.New("does not end with a question, want one")
		}
		return Line{}, errors.New("ends with a question, want none")
	}
	return l, nil
}

// markup are characters a spoken line has no use for: the model wrote
// formatting, not speech.
const markup = "*#<>{}[]|\\`_~@^="

func checkSentence(s string) (Sentence, error) {
	s = strings.Join(strings.Fields(s), " ")
	switch {
	case s == "":
		return Sentence{}, errors.New("empty")
	case len(s) > maxSentenceBytes || len(strings.Fields(s)) > maxSentenceWords:
		return Sentence{}, fmt.Errorf("more than %d words or %d bytes", maxSentenceWords, maxSentenceBytes)
	case strings.ContainsAny(s, markup):
		return Sentence{}, errors.New("holds markup characters")
	case strings.IndexFunc(s, unicode.IsLetter) < 0:
		return Sentence{}, errors.New("has no words")
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) >= 0:
		return Sentence{}, errors.New("holds control characters")
	}
	if !strings.ContainsAny(s[len(s)-1:], ".!?") {
		s += "."
	}
	return Sentence{Text: s, Question: strings.HasSuffix(s, "?")}, nil
}
