package floor

import (
	"fmt"

	"github.com/floorbench/floorbench/internal/redact"
)

// Task is one of the two detection tasks.
type Task string

// The tasks. TaskINT's name in submissions is "interruption".
const (
	TaskEOT Task = "eot"
	TaskINT Task = "int"
)

// Tasks lists both tasks in output order.
var Tasks = []Task{TaskEOT, TaskINT}

// ParseTask reads a task name as the command line and files spell it.
func ParseTask(s string) (Task, error) {
	switch s {
	case "eot":
		return TaskEOT, nil
	case "int", "interruption":
		return TaskINT, nil
	}
	return "", fmt.Errorf("unknown task %s (want eot or int)", redact.Name(s))
}

// Anchor is a positive event: a window around Time on Speaker's channel is
// searched for a prediction.
type Anchor struct {
	Speaker int
	Time    float64
	// TimeInteger records that Time is an integer as TurnBench's Python
	// holds it (an int read from JSON, kept through its consensus), which
	// its json.dumps prints as 60 where a float prints as 60.0. Scoring
	// reads only Time.
	TimeInteger bool
}

// Span is a stretch of one speaker's channel: a negative span (firing in it
// is a false positive) or an excluded interval (predictions in it are
// ignored).
type Span struct {
	Speaker int
	Start   float64
	End     float64
	// StartInteger and EndInteger: see Anchor.TimeInteger.
	StartInteger, EndInteger bool
}

// TaskGold is the gold of one task in one conversation.
type TaskGold struct {
	Positives []Anchor
	Negatives []Span
	Excluded  []Span
}

// ConversationGold is the gold of one conversation.
type ConversationGold struct {
	ID       string
	Duration float64
	// DurationInteger records that the input gave duration_s as an integer
	// (60, not 60.0); the gold artifact echoes it so, as TurnBench's
	// json.dumps echoes the int it read.
	DurationInteger bool
	// SpeakerCount is how many speakers the conversation has, where the
	// gold states it ("speakers": the gold floorbench derives from a
	// corpus states its manifest's count); 0 where it does not, as in
	// TurnBench's gold format (see Speakers).
	SpeakerCount int
	EOT          TaskGold
	INT          TaskGold
}

// Task returns the gold of task t.
func (c *ConversationGold) Task(t Task) *TaskGold {
	if t == TaskINT {
		return &c.INT
	}
	return &c.EOT
}

// MaxSpeakers bounds a conversation's stated speaker count.
const MaxSpeakers = 16

// Speakers is how many speakers the conversation has and where that comes
// from (docs/formats.md#gold-artifact): TurnBench's gold (dyadic) has
// speakers 1 and 2; other gold that states a count has that many; gold
// that states none is in TurnBench's format, whose conversations have two
// speakers, or as many as the highest speaker it mentions.
func (c *ConversationGold) Speakers(dyadic bool) (n int, source string) {
	switch mentioned := c.mentioned(); {
	case dyadic:
		return 2, "TurnBench gold has speakers 1 and 2"
	case c.SpeakerCount > 0:
		return c.SpeakerCount, fmt.Sprintf("the gold says %d speakers", c.SpeakerCount)
	case mentioned > 2:
		return mentioned, fmt.Sprintf("the gold states no count and mentions speaker %d", mentioned)
	default:
		return 2, "the gold states no count: TurnBench's two"
	}
}

// mentioned returns the highest speaker number the gold mentions (at least 1).
func (c *ConversationGold) mentioned() int {
	n := 1
	for _, g := range []*TaskGold{&c.EOT, &c.INT} {
		for _, a := range g.Positives {
			n = max(n, a.Speaker)
		}
		for _, s := range g.Negatives {
			n = max(n, s.Speaker)
		}
		for _, s := range g.Excluded {
			n = max(n, s.Speaker)
		}
	}
	return n
}

// GoldSet is a gold artifact: every conversation of a split, in order, with
// the matching windows it was built for (docs/formats.md#gold-artifact, TurnBench's gold export).
type GoldSet struct {
	// ScorerSHA and DatasetRevision are TurnBench's provenance stamps; kept
	// when read and written back, empty for gold floorbench derived itself.
	ScorerSHA       string
	DatasetRevision string
	HasProvenance   bool
	TauPre          float64
	TauMax          float64
	Conversations   []ConversationGold
}

// Default matching windows (docs/protocol.md#matching).
const (
	DefaultTauPre = 0.25
	DefaultTauMax = 3.0
)

// Find returns the conversation with the given id, or nil.
func (g *GoldSet) Find(id string) *ConversationGold {
	for i := range g.Conversations {
		if g.Conversations[i].ID == id {
			return &g.Conversations[i]
		}
	}
	return nil
}
