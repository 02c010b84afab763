package agent

import (
	"fmt"
	"math"
	"slices"
)

// Windows are the timing rules a trial is decided by
// (docs/agents.md#decisions); every one is a parameter recorded with the
// results.
type Windows struct {
	// EntryPre and Entry bound the START entry window [cue - EntryPre,
	// cue + Entry] (cut at the scenario's valid_until_s).
	EntryPre float64 `json:"entry_pre_s"`
	Entry    float64 `json:"entry_s"`
	// Yield is how long after the stimulus starts the agent's speech may
	// end and still count as yielding to it.
	Yield float64 `json:"yield_s"`
	// StopSilence is how long the agent must then stay silent (or until
	// the recording ends) for the end to count as a stop.
	StopSilence float64 `json:"stop_silence_s"`
	// BargeIn is how long after the audible stop a provider's
	// interruption event may come and still coincide with it.
	BargeIn float64 `json:"barge_in_s"`
	// BargeInKinds are the provider event kinds that say the agent was
	// interrupted.
	BargeInKinds []string `json:"barge_in_kinds"`
}

// DefaultWindows are the published defaults. Entry is the protocol's
// latency deadline (docs/protocol.md#constants: 3.0 s) and EntryPre its
// tolerance before an anchor (0.25 s).
func DefaultWindows() Windows {
	return Windows{EntryPre: 0.25, Entry: 3.0, Yield: 2.0, StopSilence: 1.0, BargeIn: 0.5,
		BargeInKinds: []string{EventSpeechStarted, EventInterrupted}}
}

// Validate checks the windows.
func (w Windows) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"entry_pre_s", w.EntryPre}, {"entry_s", w.Entry}, {"yield_s", w.Yield}, {"stop_silence_s", w.StopSilence}, {"barge_in_s", w.BargeIn}} {
		if !(f.v >= 0 && f.v <= 60) {
			return fmt.Errorf("window %s %g (want 0 to 60 s)", f.name, f.v)
		}
	}
	if w.Entry <= 0 || w.Yield <= 0 {
		return fmt.Errorf("windows entry_s %g and yield_s %g must be positive", w.Entry, w.Yield)
	}
	for _, k := range w.BargeInKinds {
		if !validEventKind(k) {
			return fmt.Errorf("barge-in kind %q (want lower-case letters, digits, _ and .)", k)
		}
	}
	return nil
}

// Outcome says whether a trial could be decided.
type Outcome string

// Trial outcomes: decided, or why not.
const (
	Decided Outcome = "decided"
	// Failed: the trial ended in an error (the recording says which).
	Failed Outcome = "error"
	// NoStimulus: a STOP trial whose stimulus was never played (the agent
	// was not heard to start).
	NoStimulus Outcome = "no-stimulus"
	// NotTalking: a STOP trial whose agent was silent when the stimulus
	// started: there was nothing to yield.
	NotTalking Outcome = "not-talking"
	// Truncated: the recording ends before the decision could be made
	// (RecordUntil says how long a harness must record).
	Truncated Outcome = "truncated"
)

// Decision is what a trial shows, read off the agent's output audio.
type Decision struct {
	Outcome Outcome `json:"outcome"`
	// Acted: START, the agent entered the floor; STOP, it yielded.
	Acted bool `json:"acted"`
	// Latency (s): START, onset minus cue of the entering speech; STOP,
	// the audible stop minus the stimulus start. NaN when not acted.
	Latency float64 `json:"-"`
	// Reclaimed: a STOP trial's agent went quiet inside the yield window
	// but spoke again within StopSilence (a brief yield, not a stop).
	Reclaimed bool `json:"reclaimed"`
	// BargeIn: a yield that a provider interruption event coincides with.
	BargeIn bool `json:"barge_in"`
	// BargeInWithoutStop: a provider interruption event in the yield window
	// of a trial whose agent did not stop.
	BargeInWithoutStop bool `json:"barge_in_without_stop"`
}

// DecideStart decides a START trial from the agent's speech segments in a
// recording of end seconds: it entered when a segment overlaps the closed
// window [cue - EntryPre, min(cue + Entry, validUntil)] (a segment ending
// exactly at the window's start does not). The latency is the first such
// segment's onset minus the cue, negative for speech already under way.
// A recording that ends before the window without an entry is Truncated.
func DecideStart(segs []Segment, cue, validUntil, end float64, w Windows) Decision {
	lo, hi := cue-w.EntryPre, min(cue+w.Entry, validUntil)
	for _, s := range segs {
		if s.Onset <= hi && s.Offset > lo {
			return Decision{Outcome: Decided, Acted: true, Latency: s.Onset - cue}
		}
	}
	if end < hi {
		return Decision{Outcome: Truncated, Latency: math.NaN()}
	}
	return Decision{Outcome: Decided, Latency: math.NaN()}
}

// DecideStop decides a STOP trial whose stimulus started at stim, in a
// recording of end seconds: the agent must be talking then (a segment
// with onset <= stim < offset). It yielded when a segment from that one on
// ends by stim + Yield and the recording then holds at least StopSilence
// of silence; the latency is that offset minus stim. A recording that ends
// before that silence is over is Truncated. events are the provider's
// events, for the barge-in instrumentation (MPTB §G.3).
func DecideStop(segs []Segment, stim, end float64, events []ProviderEvent, w Windows) Decision {
	first := slices.IndexFunc(segs, func(s Segment) bool { return s.Onset <= stim && stim < s.Offset })
	if first < 0 {
		return Decision{Outcome: NotTalking, Latency: math.NaN()}
	}
	d := Decision{Outcome: Decided, Latency: math.NaN()}
	for i := first; i < len(segs) && segs[i].Offset <= stim+w.Yield; i++ {
		off := segs[i].Offset
		if i+1 < len(segs) && segs[i+1].Onset-off < w.StopSilence {
			d.Reclaimed = true
			continue
		}
		if i+1 == len(segs) && end-off < w.StopSilence {
			return Decision{Outcome: Truncated, Latency: math.NaN()}
		}
		d.Acted, d.Reclaimed, d.Latency = true, false, off-stim
		d.BargeIn = hasEvent(events, w.BargeInKinds, stim, off+w.BargeIn)
		return d
	}
	d.BargeInWithoutStop = hasEvent(events, w.BargeInKinds, stim, stim+w.Yield)
	return d
}

// RecordUntil is how long a harness must record a trial for it to be
// decided under w: a START trial to the end of its entry window, a STOP
// trial until yield window and stop silence are over after the stimulus
// starts at stim.
func (w Windows) RecordUntil(c Condition, cue, validUntil, stim float64) float64 {
	if c.Stop() {
		return stim + w.Yield + w.StopSilence
	}
	return min(cue+w.Entry, validUntil)
}

// hasEvent reports whether an event of one of kinds lies in [from, to].
func hasEvent(events []ProviderEvent, kinds []string, from, to float64) bool {
	return slices.ContainsFunc(events, func(e ProviderEvent) bool {
		return e.Time >= from && e.Time <= to && slices.Contains(kinds, e.Kind)
	})
}
