package synth

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/floorbench/floorbench/internal/dialogue"
)

// ConversationSpec is what the generator is asked to produce for one
// conversation: the design cell and its planned length.
type ConversationSpec struct {
	ID       string
	Split    dialogue.Split
	Type     dialogue.InteractionType
	Speakers int
	// Seconds is the planned length of the main floor sequence; the
	// rendered conversation comes out within a few seconds of it.
	Seconds float64
	// HoldScale multiplies the interaction type's share of turns with a
	// hold pause (0 means 1). The tiny preset raises it so that its few
	// short dev conversations still hold EOT negatives to sweep against;
	// the mptb preset keeps the calibrated rates.
	HoldScale float64
	// Overlap says how speakers react to overlap (the preset's shares;
	// zero shares: never).
	Overlap OverlapShares
	// Train marks a conversation of the train preset: cast from
	// TrainVoices and noised with the train noises (TrainAcoustics), none
	// of which an evaluation preset uses.
	Train bool
	// Unheard marks a conversation of the unheard preset: cast from
	// UnheardVoices only (flite's and festival's, which neither the train
	// preset nor espeak-ng's timbres share), noised as the evaluation
	// presets are.
	Unheard bool
}

// Validate checks a spec before any work is spent on it.
func (s ConversationSpec) Validate() error {
	if !dialogue.ValidID(s.ID) {
		return fmt.Errorf("conversation id %q: want lower-case letters, digits, - and _", s.ID)
	}
	if s.Split != dialogue.Dev && s.Split != dialogue.Test {
		return fmt.Errorf("conversation %s: split %q (want dev or test)", s.ID, s.Split)
	}
	if _, err := dialogue.ParseInteractionType(string(s.Type)); err != nil {
		return fmt.Errorf("conversation %s: %w", s.ID, err)
	}
	if s.Train && s.Unheard {
		return fmt.Errorf("conversation %s: both train and unheard (a conversation is cast from one of them)", s.ID)
	}
	if s.Speakers < 2 || s.Speakers > 5 {
		return fmt.Errorf("conversation %s: %d speakers (want 2 to 5)", s.ID, s.Speakers)
	}
	if !(s.Seconds >= 5 && s.Seconds <= 3600) {
		return fmt.Errorf("conversation %s: %g seconds (want 5 to 3600)", s.ID, s.Seconds)
	}
	for _, sh := range []struct {
		name string
		v    float64
	}{{"backchannels in pauses", s.Overlap.BackchannelsInPauses}, {"restarts", s.Overlap.Restarts}, {"claim pauses", s.Overlap.ClaimPauses}} {
		if !(sh.v >= 0 && sh.v <= 1) {
			return fmt.Errorf("conversation %s: share of %s %g (want 0 to 1)", s.ID, sh.name, sh.v)
		}
	}
	return nil
}

// Stage names a generation stage; each draws from its own random stream so
// that changing one stage's draws leaves the others' unchanged.
type Stage string

// The stages that draw random numbers.
const (
	StageScript    Stage = "script"
	StageFloor     Stage = "floor"
	StageOverlap   Stage = "overlap" // the floor plan's reactions to overlap
	StageVoices    Stage = "voices"
	StageAcoustics Stage = "acoustics"
)

// StreamFor returns the random stream of one stage of one conversation,
// seeded from (corpus seed, conversation id, stage) only (docs/architecture.md#generator).
func StreamFor(seed uint64, id string, stage Stage) *rand.Rand {
	h := sha256.New()
	binary.Write(h, binary.LittleEndian, seed)
	h.Write([]byte(id))
	h.Write([]byte{0})
	h.Write([]byte(stage))
	sum := h.Sum(nil)
	return rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])))
}

func (s ConversationSpec) holdScale() float64 {
	if s.HoldScale == 0 {
		return 1
	}
	return s.HoldScale
}
