package floor

import (
	"cmp"
	"slices"
)

// DefaultInterruptedGuard is how long after the end of an interrupted turn
// EOT predictions of its speaker stay excluded (see DeriveMPTB).
const DefaultInterruptedGuard = 1.0

// DeriveMPTB builds the gold of a generated conversation from its event log
// (docs/protocol.md#mptb-generated):
//
//   - EOT positives: the end of every TURN that ends yielded, on its speaker.
//   - EOT negatives: the hold pauses inside every TURN.
//   - EOT excluded: the end of every TURN that ends interrupted, from the
//     onset of the interruption that ended it (its end if none is logged) to
//     guard seconds after the end: the speaker stops because they were
//     overtaken, which is neither a turn end nor a hold. Likewise every
//     restart of a TURN, from where its speaker cut off to where they
//     restarted: they stopped because someone spoke over them.
//   - INT positives: the onset of every INTERRUPTION, on the interrupter.
//   - INT negatives: the extents of BACKCHANNEL, NON_FLOOR_TAKING_INTERRUPTION
//     and NON_CONTENT events.
//   - INT excluded: the extents of INTERRUPTION_ATTEMPT events.
//
// Lists are sorted by speaker, then time, so the gold does not depend on the
// order of the log.
func DeriveMPTB(id string, duration float64, events []Event, guard float64) ConversationGold {
	g := ConversationGold{ID: id, Duration: duration}
	for _, e := range events {
		switch e.Kind {
		case Turn:
			for _, h := range e.Holds {
				g.EOT.Negatives = append(g.EOT.Negatives, Span{Speaker: e.Speaker, Start: h.Start, End: h.End})
			}
			for _, r := range e.Restarts {
				g.EOT.Excluded = append(g.EOT.Excluded, Span{Speaker: e.Speaker, Start: r.Start, End: r.End})
			}
			switch e.Ending {
			case Yielded:
				g.EOT.Positives = append(g.EOT.Positives, Anchor{Speaker: e.Speaker, Time: e.End})
			case Interrupted:
				onset := e.End
				if in, ok := interruptionOf(e, events); ok {
					onset = in.Start
				}
				g.EOT.Excluded = append(g.EOT.Excluded, Span{Speaker: e.Speaker, Start: onset, End: e.End + guard})
			}
		case Interruption:
			g.INT.Positives = append(g.INT.Positives, Anchor{Speaker: e.Speaker, Time: e.Start})
		case Backchannel, NonFloorTakingInterruption, NonContent:
			g.INT.Negatives = append(g.INT.Negatives, Span{Speaker: e.Speaker, Start: e.Start, End: e.End})
		case InterruptionAttempt:
			g.INT.Excluded = append(g.INT.Excluded, Span{Speaker: e.Speaker, Start: e.Start, End: e.End})
		}
	}
	for _, t := range []*TaskGold{&g.EOT, &g.INT} {
		slices.SortFunc(t.Positives, func(a, b Anchor) int {
			return cmp.Or(cmp.Compare(a.Speaker, b.Speaker), cmp.Compare(a.Time, b.Time))
		})
		sortSpans(t.Negatives)
		sortSpans(t.Excluded)
	}
	return g
}

// interruptionOf finds the INTERRUPTION that took the floor from turn t: by
// another speaker, starting inside the turn, leaving the floor with them.
func interruptionOf(t Event, events []Event) (Event, bool) {
	for _, e := range events {
		if e.Kind == Interruption && e.Speaker != t.Speaker && e.Start >= t.Start && e.Start <= t.End {
			return e, true
		}
	}
	return Event{}, false
}

func sortSpans(s []Span) {
	slices.SortFunc(s, func(a, b Span) int {
		return cmp.Or(cmp.Compare(a.Speaker, b.Speaker), cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	})
}
