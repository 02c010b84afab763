package floor

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/floorbench/floorbench/internal/jsonio"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/redact"
)

// WriteGoldSet writes g in the gold artifact format of TurnBench's
// `gold export` (docs/formats.md#gold-artifact), byte for byte as that command prints it for the
// same content: key order, separators and float formatting of Python's
// json.dumps, one line.
func WriteGoldSet(w io.Writer, g *GoldSet) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("{")
	if g.HasProvenance {
		fmt.Fprintf(bw, `"scorer_sha": %s, "dataset_revision": %s, `, jsonio.PyString(g.ScorerSHA), jsonio.PyString(g.DatasetRevision))
	}
	fmt.Fprintf(bw, `"tau_pre_s": %s, "tau_max_s": %s, "conversations": {`, jsonio.PyFloat(g.TauPre), jsonio.PyFloat(g.TauMax))
	var buf []byte // one conversation's lists
	for i := range g.Conversations {
		c := &g.Conversations[i]
		if i > 0 {
			bw.WriteString(", ")
		}
		fmt.Fprintf(bw, `%s: {"duration_s": %s`, jsonio.PyString(c.ID), jsonio.PyNumber(c.Duration, c.DurationInteger))
		if c.SpeakerCount > 0 { // floorbench's own gold; TurnBench's format has no such key
			fmt.Fprintf(bw, `, "speakers": %d`, c.SpeakerCount)
		}
		buf = appendAnchors(buf[:0], "eot_positive_events", c.EOT.Positives)
		buf = appendSpans(buf, "eot_negative_spans", c.EOT.Negatives)
		buf = appendAnchors(buf, "int_positive_events", c.INT.Positives)
		buf = appendSpans(buf, "int_negative_spans", c.INT.Negatives)
		buf = appendSpans(buf, "eot_excluded", c.EOT.Excluded)
		buf = appendSpans(buf, "int_excluded", c.INT.Excluded)
		bw.Write(buf)
		bw.WriteString("}")
	}
	bw.WriteString("}}\n")
	return bw.Flush()
}

func appendAnchors(b []byte, key string, anchors []Anchor) []byte {
	b = append(append(append(b, `, "`...), key...), `": [`...)
	for i, a := range anchors {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(append(b, `{"speaker": `...), int64(a.Speaker), 10)
		b = jsonio.AppendPyNumber(append(b, `, "time_s": `...), a.Time, a.TimeInteger)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendSpans(b []byte, key string, spans []Span) []byte {
	b = append(append(append(b, `, "`...), key...), `": [`...)
	for i, s := range spans {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(append(b, `{"speaker": `...), int64(s.Speaker), 10)
		b = jsonio.AppendPyNumber(append(b, `, "start": `...), s.Start, s.StartInteger)
		b = jsonio.AppendPyNumber(append(b, `, "end": `...), s.End, s.EndInteger)
		b = append(b, '}')
	}
	return append(b, ']')
}

// ReadGoldSet reads a gold artifact file of at most lim's input limit
// (see ParseGoldSet).
func ReadGoldSet(path string, lim limits.Limits) (*GoldSet, error) {
	return jsonio.ReadFile(path, lim, func(data []byte) (*GoldSet, error) { return ParseGoldSet(data, lim) })
}

// ParseGoldSet parses a gold artifact strictly: known keys only, every key
// of a conversation present (but "speakers", which floorbench's own gold
// adds), speakers >= 1, finite times,
// and the matching windows finite and >= 0; then it checks the times
// against each conversation's duration (GoldSet.Validate). Conversation
// order is kept. The number of conversations and each one's duration are
// bounded by lim.
func ParseGoldSet(data []byte, lim limits.Limits) (*GoldSet, error) {
	d := jsonio.NewDecoder(data)
	g := &GoldSet{}
	var haveSHA, haveRevision, havePre, haveMax, haveConvs bool
	err := d.Object(func(key string) error {
		var err error
		switch key {
		case "scorer_sha":
			haveSHA = true
			g.ScorerSHA, err = d.String()
		case "dataset_revision":
			haveRevision = true
			if d.Null() {
				return nil
			}
			g.DatasetRevision, err = d.String()
		case "tau_pre_s":
			havePre = true
			g.TauPre, err = nonNegative(d)
		case "tau_max_s":
			haveMax = true
			g.TauMax, err = nonNegative(d)
		case "conversations":
			haveConvs = true
			return d.Object(func(id string) error {
				c, err := parseConversationGold(d, id, lim)
				if err != nil {
					return fmt.Errorf("conversation %s: %w", redact.Name(id), err)
				}
				g.Conversations = append(g.Conversations, c)
				return lim.CheckConversations("conversations", len(g.Conversations))
			})
		default:
			return fmt.Errorf("unknown key %s", redact.Name(key))
		}
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return nil
	})
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return nil, err
	}
	switch {
	case !havePre:
		return nil, fmt.Errorf("missing key \"tau_pre_s\"")
	case !haveMax:
		return nil, fmt.Errorf("missing key \"tau_max_s\"")
	case !haveConvs:
		return nil, fmt.Errorf("missing key \"conversations\"")
	}
	g.HasProvenance = haveSHA || haveRevision
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return g, nil
}

func nonNegative(d *jsonio.Decoder) (float64, error) {
	v, _, err := nonNegativeNumber(d)
	return v, err
}

// nonNegativeNumber reads a finite number >= 0 and whether it was written
// as an integer.
func nonNegativeNumber(d *jsonio.Decoder) (float64, bool, error) {
	v, integer, err := d.Number()
	if err != nil {
		return 0, false, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, false, fmt.Errorf("must be finite and >= 0, got %v", v)
	}
	return v, integer, nil
}

var conversationGoldKeys = []string{"duration_s", "eot_positive_events", "eot_negative_spans",
	"int_positive_events", "int_negative_spans", "eot_excluded", "int_excluded"}

func parseConversationGold(d *jsonio.Decoder, id string, lim limits.Limits) (ConversationGold, error) {
	c := ConversationGold{ID: id}
	seen := map[string]bool{}
	err := d.Object(func(key string) error {
		seen[key] = true
		var err error
		switch key {
		case "duration_s":
			if c.Duration, c.DurationInteger, err = nonNegativeNumber(d); err != nil {
				return fmt.Errorf("duration_s: %w", err)
			}
			return lim.CheckDuration("duration_s", c.Duration)
		case "speakers":
			if c.SpeakerCount, err = d.Int(); err == nil && (c.SpeakerCount < 1 || c.SpeakerCount > MaxSpeakers) {
				err = fmt.Errorf("want 1 to %d, got %d", MaxSpeakers, c.SpeakerCount)
			}
			if err != nil {
				return fmt.Errorf("speakers: %w", err)
			}
			return nil
		case "eot_positive_events":
			c.EOT.Positives, err = parseAnchors(d)
		case "int_positive_events":
			c.INT.Positives, err = parseAnchors(d)
		case "eot_negative_spans":
			c.EOT.Negatives, err = parseSpans(d)
		case "int_negative_spans":
			c.INT.Negatives, err = parseSpans(d)
		case "eot_excluded":
			c.EOT.Excluded, err = parseSpans(d)
		case "int_excluded":
			c.INT.Excluded, err = parseSpans(d)
		default:
			return fmt.Errorf("unknown key %s", redact.Name(key))
		}
		if err != nil {
			return fmt.Errorf("%s%w", key, err)
		}
		return nil
	})
	if err != nil {
		return c, err
	}
	for _, k := range conversationGoldKeys {
		if !seen[k] {
			return c, fmt.Errorf("missing key %q", k)
		}
	}
	return c, nil
}

func parseAnchors(d *jsonio.Decoder) ([]Anchor, error) {
	out := []Anchor{}
	err := d.Array(func(i int) error {
		var a Anchor
		fields, err := parseRecord(d, []string{"speaker", "time_s"}, &a.Speaker, []*float64{&a.Time}, []*bool{&a.TimeInteger})
		if err != nil {
			return fmt.Errorf("[%d]%s: %w", i, fields, err)
		}
		out = append(out, a)
		return nil
	})
	return out, err
}

func parseSpans(d *jsonio.Decoder) ([]Span, error) {
	out := []Span{}
	err := d.Array(func(i int) error {
		var s Span
		fields, err := parseRecord(d, []string{"speaker", "start", "end"}, &s.Speaker, []*float64{&s.Start, &s.End}, []*bool{&s.StartInteger, &s.EndInteger})
		if err != nil {
			return fmt.Errorf("[%d]%s: %w", i, fields, err)
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// parseRecord reads {"speaker": int, <times...>: number} with exactly the
// given keys (keys[0] is the speaker), and whether each time was written
// as an integer. On error it returns the offending field as ".name" for
// the message.
func parseRecord(d *jsonio.Decoder, keys []string, speaker *int, times []*float64, integers []*bool) (string, error) {
	seen := 0
	field := ""
	err := d.Object(func(key string) error {
		field = "." + key
		if key == keys[0] {
			seen++
			v, err := d.Int()
			if err != nil {
				return err
			}
			if v < 1 {
				return fmt.Errorf("speaker must be >= 1, got %d", v)
			}
			*speaker = v
			return nil
		}
		for i, k := range keys[1:] {
			if key == k {
				seen++
				v, integer, err := d.Number()
				if err != nil {
					return err
				}
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("time must be finite, got %v", v)
				}
				*times[i], *integers[i] = v, integer
				return nil
			}
		}
		return fmt.Errorf("unknown key %s", redact.Name(key))
	})
	if err != nil {
		return field, err
	}
	if seen != len(keys) {
		return "", fmt.Errorf("want exactly the keys %q", keys)
	}
	return "", nil
}
