package score

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/jsonio"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/redact"
)

// Submission is a TurnBench submission (docs/formats.md#submission) generalised to N
// speakers: per conversation and speaker, the commit times of EOT and
// interruption detections.
type Submission struct {
	Conversations []ConversationPredictions
}

// ConversationPredictions are one conversation's predictions; Speakers[k]
// belongs to speaker k+1.
type ConversationPredictions struct {
	ID       string
	Speakers []SpeakerPredictions
}

// SpeakerPredictions are one speaker's commit times per task.
type SpeakerPredictions struct {
	EOT, INT []float64
}

// Task returns the per-speaker times of task t.
func (c *ConversationPredictions) Task(t floor.Task) [][]float64 {
	out := make([][]float64, len(c.Speakers))
	for k, s := range c.Speakers {
		if t == floor.TaskINT {
			out[k] = s.INT
		} else {
			out[k] = s.EOT
		}
	}
	return out
}

// Predictions counts the commit times s has for task t, over every
// conversation and speaker.
func (s *Submission) Predictions(t floor.Task) int {
	n := 0
	for i := range s.Conversations {
		for _, times := range s.Conversations[i].Task(t) {
			n += len(times)
		}
	}
	return n
}

// submissionTaskKey is the key a task has in a submission.
func submissionTaskKey(t floor.Task) string {
	if t == floor.TaskINT {
		return "interruption"
	}
	return "eot"
}

// WriteSubmission writes s in the submission format.
func WriteSubmission(w io.Writer, s *Submission) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"schema_version": 1, "predictions": [`)
	for i, c := range s.Conversations {
		if i > 0 {
			bw.WriteString(", ")
		}
		fmt.Fprintf(bw, `{"conversation_id": %s`, jsonio.PyString(c.ID))
		for k, sp := range c.Speakers {
			fmt.Fprintf(bw, `, "speaker_%d": {"eot": %s, "interruption": %s}`, k+1, floatList(sp.EOT), floatList(sp.INT))
		}
		bw.WriteString("}")
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

func floatList(v []float64) string {
	b := []byte{'['}
	for i, x := range v {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	return string(append(b, ']'))
}

// ReadSubmission reads a submission's structure from a file of at most
// lim's input limit (see ParseSubmission).
func ReadSubmission(path string, lim limits.Limits) (*Submission, error) {
	return jsonio.ReadFile(path, lim, ParseSubmission)
}

// ParseSubmission parses a submission strictly: schema_version 1, no unknown
// keys, speakers numbered 1..N, both tasks per speaker, lists of numbers.
// NaN and Infinity are read so that CheckSubmission can name where they are;
// the values themselves are checked against the gold there.
func ParseSubmission(data []byte) (*Submission, error) {
	d := jsonio.NewDecoder(data)
	s := &Submission{}
	var haveVersion, havePredictions bool
	err := d.Object(func(key string) error {
		switch key {
		case "schema_version":
			haveVersion = true
			return readSchemaVersion(d)
		case "predictions":
			havePredictions = true
			return d.Array(func(i int) error {
				c, err := parseConversationPredictions(d, i)
				if err != nil {
					return err
				}
				s.Conversations = append(s.Conversations, c)
				return nil
			})
		}
		return fmt.Errorf("unknown key %s", redact.Name(key))
	})
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return nil, err
	}
	if !haveVersion {
		return nil, fmt.Errorf("missing key \"schema_version\"")
	}
	if !havePredictions {
		return nil, fmt.Errorf("missing key \"predictions\"")
	}
	return s, nil
}

func parseConversationPredictions(d *jsonio.Decoder, i int) (ConversationPredictions, error) {
	var c ConversationPredictions
	haveID := false
	speakers := map[int]SpeakerPredictions{}
	err := d.Object(func(key string) error {
		if key == "conversation_id" {
			haveID = true
			id, err := d.String()
			if err != nil {
				return fmt.Errorf("predictions[%d].conversation_id: %w", i, err)
			}
			c.ID = id
			return nil
		}
		k, ok := speakerKey(key)
		if !ok {
			return fmt.Errorf("predictions[%d]: unknown key %s", i, redact.Name(key))
		}
		where := fmt.Sprintf("predictions[%d] %s", i, key)
		if haveID {
			where = fmt.Sprintf("conversation %q %s", c.ID, key)
		}
		sp, err := parseSpeakerPredictions(d, where)
		speakers[k] = sp
		return err
	})
	if err != nil {
		return c, err
	}
	if !haveID {
		return c, fmt.Errorf("predictions[%d]: missing key \"conversation_id\"", i)
	}
	for k := 1; k <= len(speakers); k++ {
		sp, ok := speakers[k]
		if !ok {
			return c, fmt.Errorf("conversation %s: speaker_%d is missing (speakers must be numbered 1..%d)", redact.Name(c.ID), k, len(speakers))
		}
		c.Speakers = append(c.Speakers, sp)
	}
	return c, nil
}

func parseSpeakerPredictions(d *jsonio.Decoder, where string) (SpeakerPredictions, error) {
	var sp SpeakerPredictions
	var haveEOT, haveINT bool
	err := d.Object(func(key string) error {
		var dst *[]float64
		switch key {
		case "eot":
			haveEOT, dst = true, &sp.EOT
		case "interruption":
			haveINT, dst = true, &sp.INT
		default:
			return fmt.Errorf("%s: unknown key %s (want eot and interruption)", where, redact.Name(key))
		}
		*dst = []float64{}
		return d.Array(func(j int) error {
			v, err := d.Float()
			if err != nil {
				return fmt.Errorf("%s %s[%d]: %w", where, key, j, err)
			}
			*dst = append(*dst, v)
			return nil
		})
	})
	if err != nil {
		return sp, err
	}
	if !haveEOT || !haveINT {
		return sp, fmt.Errorf("%s: want both keys \"eot\" and \"interruption\"", where)
	}
	return sp, nil
}

// CheckSubmission checks s against gold (docs/formats.md#submission): every gold conversation
// exactly once, no unknown ones, the gold's speakers (checkSpeakerSet), and every
// list strictly increasing, finite and inside [0, duration]. The error names
// the conversation, speaker, task and index.
func CheckSubmission(s *Submission, gold *floor.GoldSet) error {
	seen := map[string]bool{}
	for _, c := range s.Conversations {
		if seen[c.ID] {
			return fmt.Errorf("conversation %s: appears more than once", redact.Name(c.ID))
		}
		seen[c.ID] = true
		g := gold.Find(c.ID)
		if g == nil {
			return fmt.Errorf("conversation %s: not in the gold", redact.Name(c.ID))
		}
		if err := checkSpeakerSet(c.ID, len(c.Speakers), g, gold.Dyadic()); err != nil {
			return err
		}
		for k, sp := range c.Speakers {
			for _, t := range floor.Tasks {
				times := sp.EOT
				if t == floor.TaskINT {
					times = sp.INT
				}
				if err := checkTimes(times, g.Duration); err != nil {
					return fmt.Errorf("conversation %s speaker_%d %s%w", redact.Name(c.ID), k+1, submissionTaskKey(t), err)
				}
			}
		}
	}
	for _, g := range gold.Conversations {
		if !seen[g.ID] {
			return fmt.Errorf("conversation %s: missing (every gold conversation must appear once)", redact.Name(g.ID))
		}
	}
	return nil
}

func checkTimes(times []float64, duration float64) error {
	for j, t := range times {
		switch {
		case math.IsNaN(t) || math.IsInf(t, 0):
			return fmt.Errorf("[%d]: time %v is not finite", j, t)
		case t < 0 || t > duration:
			return fmt.Errorf("[%d]: time %v is outside [0, %v]", j, t, duration)
		case j > 0 && t <= times[j-1]:
			return fmt.Errorf("[%d]: time %v is not after the previous time %v (times must be strictly increasing)", j, t, times[j-1])
		}
	}
	return nil
}

// checkSpeakerSet checks that a conversation's n submitted speakers (numbered
// 1..n, as parsing makes sure) are exactly the conversation's speakers, as
// many as floor.ConversationGold.Speakers says and from the source it
// names: TurnBench's scorer rejects a submission that omits a speaker or
// names one the gold does not have.
func checkSpeakerSet(id string, n int, g *floor.ConversationGold, dyadic bool) error {
	want, source := g.Speakers(dyadic)
	if n < want {
		return fmt.Errorf("conversation %s: speaker_%d is missing (%s)", redact.Name(id), n+1, source)
	}
	if n > want {
		return fmt.Errorf("conversation %s: speaker_%d is not in the gold (%s)", redact.Name(id), want+1, source)
	}
	return nil
}
