package refagent

import (
	"fmt"
	"math"
	"time"

	"github.com/floorbench/floorbench/internal/agent/proto"
)

// SpeechParams are the parameters of the reference agent's speech
// detector (docs/agents.md#speech-detector), with DefaultSpeech's values
// as published defaults.
type SpeechParams struct {
	// MinLevelDB: a frame quieter than this (dBFS) is never speech.
	MinLevelDB float64 `json:"min_level_db"`
	// OnMarginDB: a frame is loud when this far above the noise floor;
	// OffMarginDB: quiet when less than this far above it.
	OnMarginDB  float64 `json:"on_margin_db"`
	OffMarginDB float64 `json:"off_margin_db"`
	// FloorRiseDBPerS is how fast the noise floor may rise; it falls to a
	// quieter frame at once.
	FloorRiseDBPerS float64 `json:"floor_rise_db_per_s"`
	// Onset is how long loud frames must run to start speech, Hangover
	// how long quiet frames must run to end it.
	Onset    time.Duration `json:"onset"`
	Hangover time.Duration `json:"hangover"`
}

// DefaultSpeech is the speech detector's published setting: 40 ms of
// frames 10 dB over the noise floor start speech, 300 ms of frames under
// 5 dB over it end it.
func DefaultSpeech() SpeechParams {
	return SpeechParams{MinLevelDB: -50, OnMarginDB: 10, OffMarginDB: 5, FloorRiseDBPerS: 3,
		Onset: 40 * time.Millisecond, Hangover: 300 * time.Millisecond}
}

// check reports a setting the detector cannot work with.
func (p SpeechParams) check() error {
	switch {
	case p.OffMarginDB < 0 || p.OnMarginDB < p.OffMarginDB:
		return fmt.Errorf("speech detector: want 0 <= off_margin_db <= on_margin_db, got %v and %v", p.OffMarginDB, p.OnMarginDB)
	case p.FloorRiseDBPerS < 0:
		return fmt.Errorf("speech detector: floor_rise_db_per_s must be >= 0, got %v", p.FloorRiseDBPerS)
	case p.Onset < proto.FrameDuration || p.Hangover < proto.FrameDuration:
		return fmt.Errorf("speech detector: onset and hangover must be at least one 20 ms frame, got %v and %v", p.Onset, p.Hangover)
	}
	return nil
}

// frames is d in 20 ms frames, rounded.
func frames(d time.Duration) int {
	return int((d + proto.FrameDuration/2) / proto.FrameDuration)
}

// SpeechDetector is a causal energy detector with hysteresis on 20 ms
// frames: a noise floor that falls to the quietest frame at once and rises
// slowly; speech starts after Onset of loud frames in a row and ends after
// Hangover of quiet frames in a row. Frames between the two margins keep
// the state it is in.
type SpeechDetector struct {
	p           SpeechParams
	onset, hang int
	rise        float64 // dB per frame
	floor       float64
	run         int // loud frames in a row while silent, quiet ones while speech
	speech      bool
}

// NewSpeechDetector starts a detector with no speech heard.
func NewSpeechDetector(p SpeechParams) (*SpeechDetector, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	return &SpeechDetector{p: p, onset: frames(p.Onset), hang: frames(p.Hangover),
		rise: p.FloorRiseDBPerS * proto.FrameDuration.Seconds(), floor: math.Inf(1)}, nil
}

// Push takes the next frame and reports whether speech started or ended
// with it.
func (d *SpeechDetector) Push(frame []float32) (started, ended bool) {
	e := levelDB(frame)
	// The floor never sinks below what could count as speech's margin
	// under MinLevelDB: digital silence must not make noise look loud.
	d.floor = max(min(d.floor+d.rise, e), d.p.MinLevelDB-d.p.OnMarginDB)
	loud := e > d.p.MinLevelDB && e > d.floor+d.p.OnMarginDB
	quiet := e <= d.p.MinLevelDB || e < d.floor+d.p.OffMarginDB
	switch {
	case !d.speech && loud:
		d.run++
	case d.speech && quiet:
		d.run++
	default:
		d.run = 0
	}
	if !d.speech && d.run >= d.onset {
		d.speech, d.run = true, 0
		return true, false
	}
	if d.speech && d.run >= d.hang {
		d.speech, d.run = false, 0
		return false, true
	}
	return false, false
}

// Speech reports whether the detector holds the input to be speech.
func (d *SpeechDetector) Speech() bool { return d.speech }

// levelDB is the frame's mean power in dB relative to full scale.
func levelDB(x []float32) float64 {
	var sum float64
	for _, s := range x {
		sum += float64(s) * float64(s)
	}
	return 10 * math.Log10(sum/float64(max(1, len(x)))+1e-12)
}
