package agent

// Planning allowances: what a scenario not yet generated is taken to
// last beyond its planned lead-in, generously, so that a plan's length
// bounds the generated scenario's. The lead-in is laid out in whole
// turns, so it may run a turn past its plan; the cue turn is a sentence
// and a question (a hold: a statement, the pause, and at least
// holdResumeWords more); an interruption is a claim, a pause and a
// sentence; a backchannel a word or two.
const (
	planLeadOverrun  = 8.0
	planCueTurn      = 8.0
	planHoldTurn     = holdMax + 12.0
	planFillerHold   = planHoldTurn + fillerGapMax + 1.0
	planInterruption = 9.0
	planBackchannel  = 1.5
	planSideTalk     = 6.0
	planRadio        = 10.0
	planSound        = 1.5
)

// PlannedSet is the preset's scenarios as planned, before anything is
// generated: each lasts its lead-in and the allowances above, with the
// room after its cue turn and, for STOP, the latest stimulus of its
// kind. It is what a run's length is estimated from until the set is
// generated; no audio exists for it.
func PlannedSet(p ScenarioPreset) *Set {
	set := &Set{Preset: p.Name}
	for _, d := range p.Designs {
		cue := d.LeadSeconds + planLeadOverrun + planCueTurn
		sc := Scenario{ID: d.ID, Condition: d.Condition, Speakers: d.Speakers, Cue: cue, Duration: cue + startTail}
		switch {
		case d.Condition.Hold():
			turn := planHoldTurn
			if d.Condition == StartDuringFillerHold {
				turn = planFillerHold
			}
			sc.Duration = d.LeadSeconds + planLeadOverrun + turn + holdTail
		case d.Condition.Stop():
			sc.Duration = cue + stopTail
			sc.Stimulus = &Stimulus{Delay: stimulusDelayMax, Samples: int(plannedStimulus(StimulusOf(d.Condition)) * SampleRate)}
		}
		sc.ValidUntil = sc.Duration
		set.Scenarios = append(set.Scenarios, sc)
	}
	return set
}

// plannedStimulus is the longest a stimulus of kind k is taken to last.
func plannedStimulus(k StimulusKind) float64 {
	switch k {
	case Interruption:
		return planInterruption
	case SideTalk:
		return planSideTalk
	case BackgroundSpeech:
		return planRadio
	case Backchannel:
		return planBackchannel
	}
	return planSound
}
