package score

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/jsonio"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/redact"
)

// ProbsFile is a probability file (docs/formats.md#probability-files): per conversation and speaker,
// one score in [0, 1] per frame on the grid frame i = [i/fps, (i+1)/fps).
type ProbsFile struct {
	Task          floor.Task
	FrameRate     float64
	Conversations []ConversationProbs
}

// ConversationProbs holds one conversation's score tracks; Speakers[k] is
// the track of speaker k+1.
type ConversationProbs struct {
	ID       string
	Speakers [][]float64
}

// FrameCount is the number of frames of a conversation on the canonical
// grid: floor(duration * fps).
func FrameCount(duration, fps float64) int { return int(math.Floor(duration * fps)) }

// WriteProbs writes p in the probability-file format.
func WriteProbs(w io.Writer, p *ProbsFile) error {
	bw := bufio.NewWriter(w)
	task := string(p.Task)
	fmt.Fprintf(bw, `{"schema_version": 1, "task": %q, "frame_rate_hz": %s, "probs": [`, task, jsonio.PyFloat(p.FrameRate))
	// Tracks hold long runs of one value (a gate's 0 and 1, an
	// endpointer's hold): a value equal to the one before reuses its text.
	var text []byte
	last := math.NaN()
	for i, c := range p.Conversations {
		if i > 0 {
			bw.WriteString(", ")
		}
		fmt.Fprintf(bw, `{"conversation_id": %s`, jsonio.PyString(c.ID))
		for k, track := range c.Speakers {
			fmt.Fprintf(bw, `, "speaker_%d": {"prob": [`, k+1)
			for j, v := range track {
				if j > 0 {
					bw.WriteString(", ")
				}
				if v != last || math.Signbit(v) != math.Signbit(last) {
					text, last = strconv.AppendFloat(text[:0], v, 'g', -1, 64), v
				}
				bw.Write(text)
			}
			bw.WriteString("]}")
		}
		bw.WriteString("}")
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// ReadProbs reads and validates a probability file: schema, task, frame
// rate, every value finite and in [0, 1], no duplicate conversations and
// speakers numbered 1..N without gaps. Coverage and frame counts against a
// gold set are checked by CheckProbs. The file holds at most lim's input
// limit.
// The file is read as a stream: a sweep over millions of frames holds
// their tracks, not also the text they were written as.
func ReadProbs(path string, lim limits.Limits) (*ProbsFile, error) {
	return jsonio.ReadStream(path, lim, parseProbs)
}

// ParseProbs parses a probability file's bytes (see ReadProbs).
func ParseProbs(data []byte) (*ProbsFile, error) {
	return parseProbs(jsonio.NewDecoder(data))
}

func parseProbs(d *jsonio.Decoder) (*ProbsFile, error) {
	p := &ProbsFile{}
	seen := map[string]bool{}
	var haveVersion, haveTask, haveRate, haveProbs bool
	var scratch []float64
	err := d.Object(func(key string) error {
		switch key {
		case "schema_version":
			haveVersion = true
			return readSchemaVersion(d)
		case "task":
			haveTask = true
			s, err := d.String()
			if err != nil {
				return fmt.Errorf("task: %w", err)
			}
			if s != "eot" && s != "int" {
				return fmt.Errorf("task: %s is not eot or int", redact.Name(s))
			}
			p.Task = floor.Task(s)
		case "frame_rate_hz":
			haveRate = true
			v, err := d.Float()
			if err != nil {
				return fmt.Errorf("frame_rate_hz: %w", err)
			}
			if !(v > 0) || math.IsInf(v, 0) {
				return fmt.Errorf("frame_rate_hz: must be finite and > 0, got %v", v)
			}
			p.FrameRate = v
		case "probs":
			haveProbs = true
			return d.Array(func(i int) error {
				c, err := parseConversationProbs(d, i, &scratch)
				if err != nil {
					return err
				}
				if seen[c.ID] {
					return fmt.Errorf("probs[%d]: conversation %s appears twice", i, redact.Name(c.ID))
				}
				seen[c.ID] = true
				p.Conversations = append(p.Conversations, c)
				return nil
			})
		default:
			return fmt.Errorf("unknown key %s", redact.Name(key))
		}
		return nil
	})
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		ok   bool
		name string
	}{{haveVersion, "schema_version"}, {haveTask, "task"}, {haveRate, "frame_rate_hz"}, {haveProbs, "probs"}} {
		if !f.ok {
			return nil, fmt.Errorf("missing key %q", f.name)
		}
	}
	return p, nil
}

func parseConversationProbs(d *jsonio.Decoder, i int, scratch *[]float64) (ConversationProbs, error) {
	var c ConversationProbs
	haveID := false
	tracks := map[int][]float64{}
	err := d.Object(func(key string) error {
		if key == "conversation_id" {
			haveID = true
			s, err := d.String()
			if err != nil {
				return fmt.Errorf("probs[%d].conversation_id: %w", i, err)
			}
			c.ID = s
			return nil
		}
		k, ok := speakerKey(key)
		if !ok {
			return fmt.Errorf("probs[%d]: unknown key %s", i, redact.Name(key))
		}
		where := fmt.Sprintf("probs[%d] (conversation %q) %s", i, c.ID, key)
		return d.Object(func(field string) error {
			if field != "prob" {
				return fmt.Errorf("%s: unknown key %s", where, redact.Name(field))
			}
			// Frames are read into one buffer that grows to the longest
			// track, and each track is an exact copy: no garbage from
			// growing a slice per track.
			*scratch = (*scratch)[:0]
			err := d.Floats(func(j int, v float64) error {
				if !(v >= 0 && v <= 1) {
					return fmt.Errorf("%s.prob[%d]: probability must be finite and in [0, 1], got %v", where, j, v)
				}
				*scratch = append(*scratch, v)
				return nil
			})
			if e := (*jsonio.ElementError)(nil); errors.As(err, &e) {
				err = fmt.Errorf("%s.prob[%d]: %w", where, e.Index, e.Err)
			}
			tracks[k] = append(make([]float64, 0, len(*scratch)), *scratch...)
			return err
		})
	})
	if err != nil {
		return c, err
	}
	if !haveID {
		return c, fmt.Errorf("probs[%d]: missing key \"conversation_id\"", i)
	}
	for k := 1; k <= len(tracks); k++ {
		t, ok := tracks[k]
		if !ok {
			return c, fmt.Errorf("probs[%d] (conversation %s): speaker_%d is missing (speakers must be numbered 1..%d)", i, redact.Name(c.ID), k, len(tracks))
		}
		c.Speakers = append(c.Speakers, t)
	}
	if len(c.Speakers) == 0 {
		return c, fmt.Errorf("probs[%d] (conversation %s): no speaker_N tracks", i, redact.Name(c.ID))
	}
	return c, nil
}

// speakerKey reads "speaker_N" (N >= 1, no leading zeros).
func speakerKey(key string) (int, bool) {
	rest, ok := strings.CutPrefix(key, "speaker_")
	if !ok || rest == "" || rest[0] == '0' || len(rest) > 3 {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 1
}

// CheckProbs checks p against gold: every gold conversation exactly once,
// no unknown ones, the gold's speakers (checkSpeakerSet), and exactly FrameCount frames
// per speaker.
func CheckProbs(p *ProbsFile, gold *floor.GoldSet) error {
	byID := map[string]*ConversationProbs{}
	for i := range p.Conversations {
		byID[p.Conversations[i].ID] = &p.Conversations[i]
	}
	for i := range gold.Conversations {
		g := &gold.Conversations[i]
		c, ok := byID[g.ID]
		if !ok {
			return fmt.Errorf("conversation %s: missing (every gold conversation must appear once)", redact.Name(g.ID))
		}
		if err := checkSpeakerSet(g.ID, len(c.Speakers), g, gold.Dyadic()); err != nil {
			return err
		}
		want := FrameCount(g.Duration, p.FrameRate)
		for k, track := range c.Speakers {
			if len(track) != want {
				return fmt.Errorf("conversation %s speaker_%d: %d frames, expected %d (= floor(%gs * %g Hz))", redact.Name(g.ID), k+1, len(track), want, g.Duration, p.FrameRate)
			}
		}
	}
	for _, c := range p.Conversations {
		if gold.Find(c.ID) == nil {
			return fmt.Errorf("conversation %s: not in the gold", redact.Name(c.ID))
		}
	}
	return nil
}

// readSchemaVersion reads schema_version, which must be 1, as in every
// TurnBench file format floorbench reads.
func readSchemaVersion(d *jsonio.Decoder) error {
	v, err := d.Int()
	if err != nil {
		return fmt.Errorf("schema_version: %w", err)
	}
	if v != 1 {
		return fmt.Errorf("schema_version: unsupported version %d (want 1)", v)
	}
	return nil
}
