package detect

import (
	"fmt"
	"math"
)

// FloorMapping turns per-speaker voice activity on the output grid into EOT
// and INT scores. The rules and what each parameter means are in the package
// documentation; DESIGN §6 asks for them to be explicit and parameterised.
type FloorMapping struct {
	SpeechThreshold  float64
	SilenceThreshold float64
	EOTMinSpeech     float64 // seconds
	EOTRamp          float64 // seconds
	INTRamp          float64 // seconds
	INTGate          bool
	INTGateLookback  float64 // seconds
}

func (m FloorMapping) check() error {
	switch {
	case !(m.SilenceThreshold >= 0 && m.SilenceThreshold <= m.SpeechThreshold && m.SpeechThreshold <= 1):
		return fmt.Errorf("need 0 <= silence_threshold (%v) <= speech_threshold (%v) <= 1", m.SilenceThreshold, m.SpeechThreshold)
	case !(m.EOTRamp > 0) || !(m.INTRamp > 0):
		return fmt.Errorf("eot_ramp_s and int_ramp_s must be > 0")
	case !(m.EOTMinSpeech >= 0) || !(m.INTGateLookback >= 0):
		return fmt.Errorf("eot_min_speech_s and int_gate_lookback_s must be >= 0")
	}
	return nil
}

// speakerFloor is one speaker's state while FloorMapping walks the grid.
type speakerFloor struct {
	speaking    bool
	onset       int  // first frame of the current or last speech run
	silentSince int  // first frame of the current silence
	eotArmed    bool // the last speech run was long enough to end a turn
	claim       bool // the current run began while another speaker spoke
	lastSpoke   int  // last frame spent speaking; -1 before any speech
}

// Apply derives the EOT and INT tracks from activity[k][i], speaker k's
// activity on grid frame i. Frame i's scores use frames 0..i only.
func (m FloorMapping) Apply(activity [][]float64, fps float64) (eot, intr [][]float64) {
	n := len(activity)
	frames := 0
	if n > 0 {
		frames = len(activity[0])
	}
	eot, intr = make([][]float64, n), make([][]float64, n)
	state := make([]speakerFloor, n)
	for k := range state {
		eot[k], intr[k] = make([]float64, frames), make([]float64, frames)
		state[k].lastSpoke = -1
	}
	lookback := int(math.Round(m.INTGateLookback * fps))
	minSpeech := m.EOTMinSpeech * fps
	onsets := make([]bool, n)
	for i := 0; i < frames; i++ {
		// Speech states first, for every speaker, so that the INT gate sees
		// the other speakers' state on this frame.
		clear(onsets)
		for k := range state {
			s, a := &state[k], activity[k][i]
			switch {
			case !s.speaking && a >= m.SpeechThreshold:
				s.speaking, s.onset, onsets[k] = true, i, true
			case s.speaking && a < m.SilenceThreshold:
				s.speaking, s.silentSince = false, i
				s.eotArmed = float64(i-s.onset) >= minSpeech
			}
			if s.speaking {
				s.lastSpoke = i
			}
		}
		for k := range state {
			s := &state[k]
			if onsets[k] {
				s.claim = !m.INTGate || othersSpokeSince(state, k, i-lookback)
			}
			if s.speaking {
				if s.claim {
					intr[k][i] = math.Min(1, float64(i+1-s.onset)/fps/m.INTRamp)
				}
				continue
			}
			if s.eotArmed {
				eot[k][i] = math.Min(1, float64(i+1-s.silentSince)/fps/m.EOTRamp)
			}
		}
	}
	return eot, intr
}

// othersSpokeSince reports whether a speaker other than k spoke on frame
// from or later.
func othersSpokeSince(state []speakerFloor, k, from int) bool {
	for m := range state {
		if m != k && state[m].lastSpoke >= 0 && state[m].lastSpoke >= from {
			return true
		}
	}
	return false
}
