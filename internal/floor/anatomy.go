package floor

// Anatomy labels a generated conversation's gold items with the factors of
// MPTB's error anatomy (docs/protocol.md#breakdowns-and-error-anatomy, MPTB §F.8), aligned with the gold's
// lists: HoldQuestion[i] and HoldContested[i] describe EOT.Negatives[i],
// ClaimWords[i] INT.Positives[i], NegativeWords[i] INT.Negatives[i].
type Anatomy struct {
	HoldQuestion  []bool // the speech before the hold ends a question
	HoldContested []bool // another speaker vocalises inside the hold
	ClaimWords    []int  // words of the interruption's claim
	NegativeWords []int  // words of the backchannel or interjection
}

// MPTBAnatomy labels g (derived from events by DeriveMPTB).
func MPTBAnatomy(g *ConversationGold, events []Event) Anatomy {
	var a Anatomy
	for _, s := range g.EOT.Negatives {
		question := false
		for _, e := range events {
			for _, h := range e.Holds {
				if e.Kind == Turn && e.Speaker == s.Speaker && h.Start == s.Start && h.End == s.End {
					question = h.AfterQuestion
				}
			}
		}
		a.HoldQuestion = append(a.HoldQuestion, question)
		a.HoldContested = append(a.HoldContested, Contested(s, events))
	}
	for _, p := range g.INT.Positives {
		words := 0
		for _, e := range events {
			if e.Kind == Interruption && e.Speaker == p.Speaker && e.Start == p.Time {
				words = e.Words
			}
		}
		a.ClaimWords = append(a.ClaimWords, words)
	}
	for _, s := range g.INT.Negatives {
		words := 0
		for _, e := range events {
			if e.Kind != Turn && e.Speaker == s.Speaker && e.Start == s.Start && e.End == s.End {
				words = e.Words
			}
		}
		a.NegativeWords = append(a.NegativeWords, words)
	}
	return a
}

// Contested reports whether a speaker other than the hold's vocalises
// inside it (any event overlapping the open interval of the hold).
func Contested(hold Span, events []Event) bool {
	for _, e := range events {
		if e.Speaker != hold.Speaker && e.Start < hold.End && e.End > hold.Start {
			return true
		}
	}
	return false
}

// ClaimLengthBand is the error-anatomy band of a claim's length in words.
func ClaimLengthBand(words int) string {
	switch {
	case words <= 3:
		return "1-3"
	case words <= 8:
		return "4-8"
	}
	return "9+"
}
