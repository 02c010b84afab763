package agent

import (
	"math"
	"testing"
)

// Entry window of a START trial with cue 10 s, the default windows
// (pre 0.25 s, entry 3 s) and a validity that ends at 12 s for a hold:
// every boundary, hand-worked.
func TestDecideStartAtEveryBoundary(t *testing.T) {
	w := DefaultWindows()
	cases := []struct {
		name       string
		segs       []Segment
		validUntil float64
		acted      bool
		latency    float64
	}{
		{"silent", nil, 20, false, math.NaN()},
		{"onset at the cue", []Segment{{10, 11}}, 20, true, 0},
		{"onset at the window's end", []Segment{{13, 14}}, 20, true, 3},
		{"onset just after the window", []Segment{{13.01, 14}}, 20, false, math.NaN()},
		{"onset at cue - pre", []Segment{{9.75, 11}}, 20, true, -0.25},
		{"speech ending at cue - pre", []Segment{{9, 9.75}}, 20, false, math.NaN()},
		{"speech running into the window", []Segment{{9, 9.76}}, 20, true, -1},
		{"earlier speech, then an entry", []Segment{{5, 6}, {11.2, 12}}, 20, true, 1.2},
		{"hold: onset at valid_until", []Segment{{12, 13}}, 12, true, 2},
		{"hold: onset after valid_until", []Segment{{12.01, 13}}, 12, false, math.NaN()},
	}
	for _, c := range cases {
		d := DecideStart(c.segs, 10, c.validUntil, 30, w)
		if d.Outcome != Decided || d.Acted != c.acted || !sameLatency(d.Latency, c.latency) {
			t.Errorf("%s: %+v, want acted %v latency %g", c.name, d, c.acted, c.latency)
		}
	}
}

func sameLatency(a, b float64) bool {
	return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-9
}

// Yield window of a STOP trial with the stimulus at 20 s and the default
// windows (yield 2 s, stop silence 1 s, barge-in 0.5 s).
func TestDecideStopAtEveryBoundary(t *testing.T) {
	w := DefaultWindows()
	cases := []struct {
		name      string
		segs      []Segment
		outcome   Outcome
		acted     bool
		latency   float64
		reclaimed bool
	}{
		{"stops inside the window", []Segment{{15, 21.5}}, Decided, true, 1.5, false},
		{"stops at the window's end", []Segment{{15, 22}}, Decided, true, 2, false},
		{"stops just after it", []Segment{{15, 22.01}}, Decided, false, math.NaN(), false},
		{"silent exactly stop_silence before speaking again", []Segment{{15, 21}, {22, 25}}, Decided, true, 1, false},
		{"silent just under stop_silence", []Segment{{15, 21}, {21.99, 25}}, Decided, false, math.NaN(), true},
		{"a brief yield, then a stop", []Segment{{15, 20.5}, {21, 21.5}}, Decided, true, 1.5, false},
		{"stopped just as the stimulus started", []Segment{{15, 20}}, NotTalking, false, math.NaN(), false},
		{"started just as the stimulus started", []Segment{{20, 25}}, Decided, false, math.NaN(), false},
		{"silent throughout", nil, NotTalking, false, math.NaN(), false},
	}
	for _, c := range cases {
		d := DecideStop(c.segs, 20, 30, nil, w)
		if d.Outcome != c.outcome || d.Acted != c.acted || !sameLatency(d.Latency, c.latency) || d.Reclaimed != c.reclaimed {
			t.Errorf("%s: %+v, want %s acted %v latency %g reclaimed %v", c.name, d, c.outcome, c.acted, c.latency, c.reclaimed)
		}
	}
}

// A stop coincides with a provider interruption event between the
// stimulus start and barge_in_s after the audible stop (21.5 s here).
func TestDecideStopBargeIn(t *testing.T) {
	w := DefaultWindows()
	stop := []Segment{{15, 21.5}}
	cases := []struct {
		event   ProviderEvent
		bargeIn bool
	}{
		{ProviderEvent{Kind: EventSpeechStarted, Time: 20.3}, true},
		{ProviderEvent{Kind: EventInterrupted, Time: 20}, true},
		{ProviderEvent{Kind: EventInterrupted, Time: 22}, true},
		{ProviderEvent{Kind: EventInterrupted, Time: 22.01}, false},
		{ProviderEvent{Kind: EventSpeechStarted, Time: 19.99}, false},
		{ProviderEvent{Kind: EventResponseDone, Time: 21.5}, false},
	}
	for _, c := range cases {
		if d := DecideStop(stop, 20, 30, []ProviderEvent{c.event}, w); d.BargeIn != c.bargeIn || !d.Acted {
			t.Errorf("%+v: %+v, want barge-in %v", c.event, d, c.bargeIn)
		}
	}
	// The provider says it was interrupted, the audio goes on.
	d := DecideStop([]Segment{{15, 30}}, 20, 30, []ProviderEvent{{Kind: EventInterrupted, Time: 21}}, w)
	if d.Acted || !d.BargeInWithoutStop {
		t.Errorf("an event without a stop: %+v", d)
	}
}

// A recording that ends before its decision is made decides nothing: a
// START trial without an entry before its window closes, a STOP trial
// whose agent went quiet but not for stop_silence_s before the end. An
// entry, or speech that outlasts the yield window, decides early.
func TestDecideTruncatedRecordings(t *testing.T) {
	w := DefaultWindows()
	for _, c := range []struct {
		name    string
		d       Decision
		outcome Outcome
		acted   bool
	}{
		{"START, no entry, ends inside the window", DecideStart(nil, 10, 20, 12.99, w), Truncated, false},
		{"START, no entry, ends with the window", DecideStart(nil, 10, 20, 13, w), Decided, false},
		{"START, entry, ends inside the window", DecideStart([]Segment{{11, 12}}, 10, 20, 12, w), Decided, true},
		{"STOP, quiet 0.99 s before the end", DecideStop([]Segment{{15, 21}}, 20, 21.99, nil, w), Truncated, false},
		{"STOP, quiet 1 s before the end", DecideStop([]Segment{{15, 21}}, 20, 22, nil, w), Decided, true},
		{"STOP, still talking at the end", DecideStop([]Segment{{15, 21.5}}, 20, 21.5, nil, w), Truncated, false},
		{"STOP, talking past the window", DecideStop([]Segment{{15, 22.5}}, 20, 22.5, nil, w), Decided, false},
	} {
		if c.d.Outcome != c.outcome || c.d.Acted != c.acted {
			t.Errorf("%s: %+v, want %s acted %v", c.name, c.d, c.outcome, c.acted)
		}
	}
	if got := w.RecordUntil(StopOnBackchannel, 5, 30, 20); got != 23 {
		t.Errorf("STOP record until %g, want 23", got)
	}
	if got := w.RecordUntil(StartDuringHold, 10, 12, 0); got != 12 {
		t.Errorf("hold record until %g, want 12", got)
	}
}

func TestWindowsValidate(t *testing.T) {
	for _, w := range []Windows{
		{Entry: 0, Yield: 2},
		{Entry: 3, Yield: 2, StopSilence: -1},
		{Entry: 3, Yield: math.NaN()},
		{Entry: 3, Yield: 2, BargeInKinds: []string{"Speech Started"}},
	} {
		if w.Validate() == nil {
			t.Errorf("%+v accepted", w)
		}
	}
}
