package floor

import (
	"fmt"

	"github.com/floorbench/floorbench/internal/redact"
)

// BoundarySlack is how far, in seconds, an annotated boundary or a gold
// span may lie outside its conversation [0, duration], and how far an
// annotated segment's end may lie before its start. TurnBench's own data
// has such boundaries (the reference annotations hold a segment starting at
// -0.19 s, one ending 2.09 s past the conversation and one ending 1.16 s
// before its start, and its gold export keeps them); a boundary off by more
// than the whole matching window is not annotator jitter but broken data.
const BoundarySlack = DefaultTauMax

// Dyadic reports whether the gold set is TurnBench's (it carries
// TurnBench's provenance stamps): TurnBench conversations have exactly
// speakers 1 and 2, and submissions for them must name exactly those.
func (g *GoldSet) Dyadic() bool { return g.HasProvenance }

// Validate checks what parsing cannot: every anchor inside
// [0, duration + tau_pre] (an anchor later than that can never be matched
// by a prediction inside the conversation), every span boundary within
// BoundarySlack of [0, duration], every speaker within the conversation's
// (ConversationGold.Speakers: for TurnBench gold only 1 and 2, for gold
// that states a count at most that), and every span an interval that can
// be true. The error names the conversation, field, speaker and value.
//
// Spans: gold that states its speaker count is floorbench's own, derived
// from event logs whose spans all have a length, and a span of it that
// ends at or before its start is refused. Gold in TurnBench's format
// keeps what TurnBench's scorer accepts because its own consensus writes
// it: a span whose end is before its start (the reference gold of
// testdata/reference holds a hold pause from 15.90 s to 11.56 s; such a
// span holds no prediction: a negative one is always a true negative, an
// excluded one excludes nothing). Duplicate anchors are accepted (each
// counts as a positive of its own).
func (g *GoldSet) Validate() error {
	for i := range g.Conversations {
		c := &g.Conversations[i]
		if err := c.validate(g.TauPre, g.Dyadic()); err != nil {
			return fmt.Errorf("conversation %s: %w", redact.Name(c.ID), err)
		}
	}
	return nil
}

func (c *ConversationGold) validate(tauPre float64, dyadic bool) error {
	if dyadic && c.SpeakerCount != 0 && c.SpeakerCount != 2 {
		return fmt.Errorf("speakers: %d in TurnBench gold, which has speakers 1 and 2 only", c.SpeakerCount)
	}
	for _, l := range c.fields() {
		for j, a := range l.anchors {
			err := c.checkSpeaker(a.Speaker, dyadic)
			if err == nil && (a.Time < 0 || a.Time > c.Duration+tauPre) {
				err = fmt.Errorf("time_s %v is outside [0, %v] (duration_s %v + tau_pre_s %v)", a.Time, c.Duration+tauPre, c.Duration, tauPre)
			}
			if err != nil {
				return fmt.Errorf("%s[%d] speaker %d: %w", l.key, j, a.Speaker, err)
			}
		}
		for j, s := range l.spans {
			err := c.checkSpeaker(s.Speaker, dyadic)
			if err == nil {
				err = c.checkSpan(s)
			}
			if err != nil {
				return fmt.Errorf("%s[%d] speaker %d: %w", l.key, j, s.Speaker, err)
			}
		}
	}
	return nil
}

// RefuseReversed refuses a span that ends at or before its start in gold
// of any shape: Validate keeps such spans in TurnBench's format because
// TurnBench's consensus writes them and its scorer counts with them
// (they hold no prediction), so agreeing with its reference needs them;
// a lab that wants none (floorbench's own gold never has one) asks for
// this check with --strict-gold. The error names the conversation, the
// field, the span's index, its speaker and both times.
func (g *GoldSet) RefuseReversed() error {
	for _, c := range g.Conversations {
		for _, l := range c.fields() {
			for j, s := range l.spans {
				if s.End <= s.Start {
					return fmt.Errorf("conversation %s: %s[%d] speaker %d: end %v is not after start %v (--strict-gold refuses a span without a length)", redact.Name(c.ID), l.key, j, s.Speaker, s.End, s.Start)
				}
			}
		}
	}
	return nil
}

// goldField is one list of a conversation's gold under its key in the
// gold file: anchors or spans, the other nil.
type goldField struct {
	key     string
	anchors []Anchor
	spans   []Span
}

// fields lists the conversation's gold in the file's order, the one list
// Validate and RefuseReversed walk.
func (c *ConversationGold) fields() []goldField {
	return []goldField{
		{"eot_positive_events", c.EOT.Positives, nil},
		{"eot_negative_spans", nil, c.EOT.Negatives},
		{"int_positive_events", c.INT.Positives, nil},
		{"int_negative_spans", nil, c.INT.Negatives},
		{"eot_excluded", nil, c.EOT.Excluded},
		{"int_excluded", nil, c.INT.Excluded},
	}
}

// checkSpan refuses a span that cannot be true (see Validate).
func (c *ConversationGold) checkSpan(s Span) error {
	lo, hi := -BoundarySlack, c.Duration+BoundarySlack
	for _, b := range []struct {
		field string
		v     float64
	}{{"start", s.Start}, {"end", s.End}} {
		if b.v < lo || b.v > hi {
			return fmt.Errorf("%s %v is outside [%v, %v] (%v s around [0, duration_s %v])", b.field, b.v, lo, hi, BoundarySlack, c.Duration)
		}
	}
	if c.SpeakerCount > 0 && s.End <= s.Start {
		return fmt.Errorf("end %v is not after start %v (a span of floorbench's gold, which states its speakers, has a length)", s.End, s.Start)
	}
	return nil
}

// checkSpeaker refuses a speaker the conversation does not have.
func (c *ConversationGold) checkSpeaker(speaker int, dyadic bool) error {
	switch {
	case dyadic && speaker > 2:
		return fmt.Errorf("speaker %d in TurnBench gold, which has speakers 1 and 2 only", speaker)
	case c.SpeakerCount > 0 && speaker > c.SpeakerCount:
		return fmt.Errorf("speaker %d, but the gold says %d speakers", speaker, c.SpeakerCount)
	}
	return nil
}

// CheckAnnotatedSegments rejects an annotated segment with a boundary more
// than BoundarySlack outside [0, duration] or an end more than
// BoundarySlack before its start: the gold derived from it would carry
// excluded intervals like [-5, 2] or [30, 20]. Smaller deviations are kept,
// as TurnBench keeps them. The error names speaker, annotator, segment,
// field and value.
func CheckAnnotatedSegments(duration float64, speakers []SpeakerAnnotations) error {
	lo, hi := -BoundarySlack, duration+BoundarySlack
	for k, tracks := range speakers {
		for a, track := range tracks {
			for i, s := range track {
				var err error
				switch {
				case s.Start < lo || s.Start > hi:
					err = fmt.Errorf("start %v is outside [%v, %v] (%v s around [0, duration_s %v])", s.Start, lo, hi, BoundarySlack, duration)
				case s.End < lo || s.End > hi:
					err = fmt.Errorf("end %v is outside [%v, %v] (%v s around [0, duration_s %v])", s.End, lo, hi, BoundarySlack, duration)
				case s.Start-s.End > BoundarySlack:
					err = fmt.Errorf("end %v is more than %v s before start %v", s.End, BoundarySlack, s.Start)
				}
				if err != nil {
					return fmt.Errorf("speaker_%d annotator %c segment %d: %w", k+1, 'a'+a, i, err)
				}
			}
		}
	}
	return nil
}

// CheckTurnBenchGold checks a conversation's annotations as
// CheckAnnotatedSegments does and then the gold TurnBench's consensus
// derives from them as Validate does: segments within BoundarySlack of
// the conversation can still put a consensus turn end before 0 (a turn
// ending at -1 s), which no gold reader would accept. Ingest runs it, so a
// corpus never holds annotations whose gold cannot be read.
func CheckTurnBenchGold(id string, duration float64, speakers []SpeakerAnnotations) error {
	if err := CheckAnnotatedSegments(duration, speakers); err != nil {
		return err
	}
	g := DeriveTurnBench(id, duration, speakers)
	if err := g.validate(DefaultTauPre, true); err != nil {
		return fmt.Errorf("the gold derived from its annotations: %w", err)
	}
	return nil
}
