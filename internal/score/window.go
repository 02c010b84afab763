package score

import "fmt"

// NegativeWindow names the rule that says where an unclaimed prediction
// fires a negative span (docs/protocol.md#negative-window).
type NegativeWindow string

// The negative windows.
const (
	// SpanWindow charges a prediction in [start − tau_pre, end]: the
	// papers' rule, TurnBench's scorer, the default.
	SpanWindow NegativeWindow = "span"
	// AnchoredWindow charges one in [start − tau_pre, max(end, start +
	// tau_max)]: a negative reaches from its onset as far as a positive
	// window reaches from its anchor, so firing just after a short
	// vocalisation ends costs what it would earn after a claim.
	AnchoredWindow NegativeWindow = "anchored"
)

// NegativeWindows are the windows every result reports, in the order it
// reports them.
var NegativeWindows = []NegativeWindow{SpanWindow, AnchoredWindow}

// ParseNegativeWindow accepts the name of a negative window.
func ParseNegativeWindow(s string) (NegativeWindow, error) {
	for _, w := range NegativeWindows {
		if string(w) == s {
			return w, nil
		}
	}
	return "", fmt.Errorf("%q is not a negative window (want span or anchored)", s)
}

// end is the last time at which a prediction fires a negative span
// [start, end] under w: its end, or under AnchoredWindow at least tauMax
// after its start.
func (w NegativeWindow) end(start, end, tauMax float64) float64 {
	if w == AnchoredWindow {
		return max(end, start+tauMax)
	}
	return end
}

// NegativeCounts are the negative spans that fired (FP) and those that did
// not (TN) under one negative window.
type NegativeCounts struct{ FP, TN int }

// FPRate is FP/(FP+TN), NaN without negatives.
func (n NegativeCounts) FPRate() float64 { return ratio(n.FP, n.FP+n.TN) }

// WindowCounts are a task's negative counts under each negative window.
type WindowCounts struct{ Span, Anchored NegativeCounts }

// Under returns the counts under w.
func (c WindowCounts) Under(w NegativeWindow) NegativeCounts {
	if w == AnchoredWindow {
		return c.Anchored
	}
	return c.Span
}

func (c *WindowCounts) add(o WindowCounts) {
	c.Span.FP += o.Span.FP
	c.Span.TN += o.Span.TN
	c.Anchored.FP += o.Anchored.FP
	c.Anchored.TN += o.Anchored.TN
}
