package refagent

import (
	"fmt"
	"strings"
)

// Frame is what the reference agent knows at the end of one input frame.
type Frame struct {
	In  []float32 // what it heard (20 ms, 16 kHz)
	Own []float32 // what it said meanwhile, nil while silent
	// Speech is its speech detector's view of In, hysteresis included.
	Speech bool
}

// Act is a policy's floor decision for the next frame.
type Act int

// The acts. Speak and SpeakShort are ignored while the agent talks, Yield
// while it is silent.
const (
	Hold       Act = iota // go on as it is, talking or silent
	Speak                 // enter the floor with its next utterance
	SpeakShort            // enter with its short utterance
	Yield                 // stop talking at once
)

// Policy takes the reference agent's floor decisions, frame by frame, from
// what it hears and says. A Policy serves one connection; one that also
// implements io.Closer is closed with it.
type Policy interface {
	Step(f Frame) (Act, error)
}

// The policies (docs/agents.md#reference-agent).
const (
	AlwaysYield = "always-yield"
	NeverYield  = "never-yield"
	Detector    = "detector"
)

// Policies lists the policy names in the order docs/agents.md gives them.
var Policies = []string{AlwaysYield, NeverYield, Detector}

// CheckPolicy reports a policy name it does not know.
func CheckPolicy(name string) error {
	for _, p := range Policies {
		if p == name {
			return nil
		}
	}
	return fmt.Errorf("unknown agent policy %q (known: %s)", name, strings.Join(Policies, ", "))
}

// silencePolicy is always-yield and never-yield: enter once the other
// side has spoken and then been silent for the entry silence (counted
// while the agent itself is silent too); stop at once when anyone speaks
// over it (always-yield) or never (never-yield). After a yield it waits
// the longer re-entry silence: it gave the floor away and takes it back
// only once the other side is done, not in the breath after a "yeah".
type silencePolicy struct {
	yield   bool
	entry   int  // frames of silence before entering
	reentry int  // frames of silence before entering after a yield
	heard   bool // speech heard since the agent last entered
	yielded bool // the agent's last utterance ended in a yield
	quiet   int  // frames of silence on both sides
}

func (p *silencePolicy) entryFrames() int {
	if p.yielded {
		return p.reentry
	}
	return p.entry
}

func (p *silencePolicy) Step(f Frame) (Act, error) {
	talking := f.Own != nil
	if f.Speech {
		p.heard = true
	}
	if f.Speech || talking {
		p.quiet = 0
	} else {
		p.quiet++
	}
	switch {
	case talking && f.Speech && p.yield:
		p.yielded = true
		return Yield, nil
	case !talking && p.heard && p.quiet >= p.entryFrames():
		p.heard, p.yielded = false, false
		return Speak, nil
	}
	return Hold, nil
}
