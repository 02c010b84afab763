package synth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/dialogue"
)

func chatSpec() ConversationSpec {
	return ConversationSpec{ID: "c-01", Split: dialogue.Test, Type: dialogue.Instructional, Speakers: 3, Seconds: 40, Overlap: presetOverlap}
}

// A plan is the templates' script without its words: the same speaking
// time, speakers who never follow themselves, the type's question share.
func TestPlanScriptPlansTheSpecsLength(t *testing.T) {
	p := PlanScript(chatSpec(), StreamFor(1, "c-01", StageScript))
	words := 0
	for i, l := range p.Lines {
		if l.Speaker < 1 || l.Speaker > 3 || (i > 0 && l.Speaker == p.Lines[i-1].Speaker) {
			t.Fatalf("line %d: speaker %d after %d", i+1, l.Speaker, p.Lines[max(i-1, 0)].Speaker)
		}
		if l.Sentences < 1 || l.Words < 3 {
			t.Fatalf("line %d: %+v", i+1, l)
		}
		words += l.Words
	}
	secs := float64(words)/WordsPerSecond + float64(len(p.Lines))*StyleOf(dialogue.Instructional).GapMean
	if secs < 40 || secs > 40+3*StyleOf(dialogue.Instructional).TurnSeconds {
		t.Fatalf("%d lines planned to %.1f s for a 40 s spec", len(p.Lines), secs)
	}
	again := PlanScript(chatSpec(), StreamFor(1, "c-01", StageScript))
	if fmt.Sprint(again) != fmt.Sprint(p) {
		t.Fatal("the same stream planned another script")
	}
	prompt := p.UserPrompt(1)
	if strings.Count(prompt, "\nLine ") != len(p.Lines) || !strings.Contains(prompt, p.Topic()) || strings.Contains(prompt, "attempt") {
		t.Fatalf("prompt:\n%s", prompt)
	}
	if !strings.Contains(p.UserPrompt(2), "This is attempt 2") {
		t.Fatal("a retried prompt does not say so")
	}
}

// answerFor writes a good answer to plan p as a model would.
func answerFor(p ScriptPlan) map[string]any {
	var lines []map[string]any
	for _, l := range p.Lines {
		var ss []string
		for k := range l.Sentences {
			n := max(1, l.Words/l.Sentences)
			s := strings.TrimSpace(strings.Repeat("well ", n))
			s = "W" + s[1:] + "."
			if l.Question && k == l.Sentences-1 {
				s = s[:len(s)-1] + "?"
			}
			ss = append(ss, s)
		}
		lines = append(lines, map[string]any{"speaker": l.Speaker, "sentences": ss})
	}
	return map[string]any{"lines": lines}
}

func encode(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func TestParseScriptAnswerChecksEveryLine(t *testing.T) {
	p := PlanScript(chatSpec(), StreamFor(1, "c-01", StageScript))
	good := answerFor(p)
	lines, err := ParseScriptAnswer(p, "Here you go:\n```json\n"+encode(good)+"\n```")
	if err != nil || len(lines) != len(p.Lines) {
		t.Fatalf("a good answer in a code fence: %v", err)
	}
	for i, l := range lines {
		if l.Speaker != p.Lines[i].Speaker || l.Sentences[len(l.Sentences)-1].Question != p.Lines[i].Question {
			t.Fatalf("line %d: %+v for plan %+v", i+1, l, p.Lines[i])
		}
	}
	edit := func(f func(lines []map[string]any)) string {
		var a map[string][]map[string]any
		json.Unmarshal([]byte(encode(good)), &a)
		f(a["lines"])
		return encode(a)
	}
	q := 0
	for q < len(p.Lines) && !p.Lines[q].Question {
		q++
	}
	cases := []struct{ name, answer, want string }{
		{"not json", "I cannot help with that.", "no JSON object"},
		{"wrong shape", `{"lines": "none"}`, "not an object of the form"},
		{"missing line", encode(map[string]any{"lines": good["lines"].([]map[string]any)[1:]}), fmt.Sprintf("%d lines, want %d", len(p.Lines)-1, len(p.Lines))},
		{"wrong speaker", edit(func(l []map[string]any) { l[1]["speaker"] = 9 }), "line 2: speaker 9, want"},
		{"empty sentence", edit(func(l []map[string]any) { l[0]["sentences"] = []string{"Fine.", "  "} }), "line 1: sentence 2: empty"},
		{"runaway", edit(func(l []map[string]any) { l[0]["sentences"] = []string{strings.Repeat("and ", 50) + "so."} }), "line 1: sentence 1: more than 45 words"},
		{"markup", edit(func(l []map[string]any) { l[0]["sentences"] = []string{"**Speaker 1:** hello there you."} }), "line 1: sentence 1: holds markup"},
		{"no words", edit(func(l []map[string]any) { l[0]["sentences"] = []string{"... !"} }), "line 1: sentence 1: has no words"},
		{"too few words", edit(func(l []map[string]any) { l[0]["sentences"] = []string{"No."} }), "line 1: 1 words, want"},
		{"question dropped", edit(func(l []map[string]any) {
			ss := l[q]["sentences"].([]any)
			ss[len(ss)-1] = strings.TrimSuffix(ss[len(ss)-1].(string), "?") + "."
		}), fmt.Sprintf("line %d: does not end with a question", q+1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseScriptAnswer(p, c.answer)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// scriptedChat answers from a list, one answer per call.
type scriptedChat struct {
	answers []ChatAnswer
	prompts []ChatPrompt
}

func (s *scriptedChat) Answer(_ context.Context, p ChatPrompt) (ChatAnswer, error) {
	s.prompts = append(s.prompts, p)
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a, nil
}

func (s *scriptedChat) ChatKey(p ChatPrompt) string { return fmt.Sprintf("key-%d", p.Attempt) }

func TestChatScriptsRetryRejectedAnswers(t *testing.T) {
	spec := chatSpec()
	p := PlanScript(spec, StreamFor(1, spec.ID, StageScript))
	good := ChatAnswer{Text: encode(answerFor(p))}
	chat := &scriptedChat{answers: []ChatAnswer{{Text: good.Text[:40], Truncated: true}, {Text: "{}"}, good}}
	s, err := ChatScripts{Chat: chat}.WriteScript(context.Background(), spec, StreamFor(1, spec.ID, StageScript))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Lines) != len(p.Lines) || s.Topic != p.Topic() || fmt.Sprint(s.Sources) != "[key-1 key-2 key-3]" {
		t.Fatalf("%d lines, topic %q, sources %v", len(s.Lines), s.Topic, s.Sources)
	}
	if chat.prompts[0].Seed == chat.prompts[1].Seed || chat.prompts[0].User == chat.prompts[1].User {
		t.Fatal("a retry asked the same request again")
	}
	chat = &scriptedChat{answers: []ChatAnswer{{Text: "{}"}, {Text: "{}"}}}
	_, err = ChatScripts{Chat: chat, Attempts: 2}.WriteScript(context.Background(), spec, StreamFor(1, spec.ID, StageScript))
	if !errors.Is(err, ErrRejectedAnswers) || !strings.HasPrefix(err.Error(), "conversation c-01: dialogue: 2 answers failed validation (last: 0 lines, want") {
		t.Fatalf("err = %v", err)
	}
}

func FuzzParseScriptAnswer(f *testing.F) {
	spec := chatSpec()
	p := PlanScript(spec, StreamFor(1, spec.ID, StageScript))
	f.Add(encode(answerFor(p)))
	f.Add("```json\n" + encode(answerFor(p)) + "\n```")
	f.Add(`{"lines": [{"speaker": 1, "sentences": ["Hi."]}]}`)
	f.Add(`{"lines": [{"speaker": 1, "sentences": [""]}`)
	f.Add("{\"lines\": null}")
	f.Fuzz(func(t *testing.T, answer string) {
		lines, err := ParseScriptAnswer(p, answer)
		if err != nil {
			if strings.Contains(err.Error(), answer) && len(answer) > 8 {
				t.Fatalf("error %q quotes the answer", err)
			}
			return
		}
		if len(lines) != len(p.Lines) {
			t.Fatalf("%d lines accepted for %d planned", len(lines), len(p.Lines))
		}
		for i, l := range lines {
			if l.Speaker != p.Lines[i].Speaker || len(l.Sentences) == 0 {
				t.Fatalf("line %d accepted: %+v", i+1, l)
			}
			for _, s := range l.Sentences {
				if s.Words() == 0 || s.Words() > maxSentenceWords || strings.ContainsAny(s.Text, markup) {
					t.Fatalf("line %d: sentence %q accepted", i+1, s.Text)
				}
			}
		}
	})
}
