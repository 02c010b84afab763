package refagent

import (
	"errors"
	"fmt"
	"math"

	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/score"
)

// DetectorConfig sets the detector policy: a floorbench detector system
// streamed over what the agent hears (speaker 0) and what it says
// (speaker 1), its scores committed by the protocol's commit rule
// (docs/protocol.md#commit-rule) at Threshold. A committed EOT of speaker
// 0 enters the floor; a committed INT of speaker 0 while the agent talks
// stops it.
type DetectorConfig struct {
	System  *detect.System `json:"-"`
	Runtime detect.Runtime `json:"-"`
	// Name is the system's name in records.
	Name       string  `json:"system"`
	Threshold  float64 `json:"threshold"`
	Refractory float64 `json:"refractory_s"`
	// SpeakAtCommit says ShortUtterance at every EOT commit instead of a
	// long utterance: the seated agent then speaks exactly where the
	// offline detector commits.
	SpeakAtCommit bool `json:"speak_at_commit"`
}

// DefaultDetector is the detector policy's published setting, less the
// system: threshold 0.5 and the protocol's refractory.
func DefaultDetector() DetectorConfig {
	return DetectorConfig{Threshold: 0.5, Refractory: score.DefaultParams().Refractory}
}

func (c DetectorConfig) check() error {
	switch {
	case c.System == nil:
		return errors.New("the detector policy needs a detector system")
	case math.IsNaN(c.Threshold) || c.Threshold < 0 || c.Threshold > 1:
		return fmt.Errorf("detector policy threshold %v: must be in [0, 1]", c.Threshold)
	case math.IsNaN(c.Refractory) || math.IsInf(c.Refractory, 0) || c.Refractory < 0:
		return fmt.Errorf("detector policy refractory %v s: must be finite and >= 0", c.Refractory)
	}
	_, err := frameRate(c.System)
	return err
}

// frameRate is the frame rate of the system's score tracks.
func frameRate(s *detect.System) (float64, error) {
	fps, ok := s.Params()["frame_rate_hz"].(float64)
	if !ok || !(fps > 0) {
		return 0, fmt.Errorf("system %s has no frame_rate_hz to commit its scores at", s.Name)
	}
	return fps, nil
}

// detectorPolicy is the cascaded agent: a detector's streamed scores,
// committed as the offline protocol commits them.
type detectorPolicy struct {
	cfg              DetectorConfig
	stream           detect.Stream
	eotRule, intRule *score.Committer
	silence          []float32 // speaker 1's channel while the agent is silent
}

func newDetectorPolicy(cfg DetectorConfig) (*detectorPolicy, error) {
	fps, err := frameRate(cfg.System)
	if err != nil {
		return nil, err
	}
	stream, err := cfg.System.OpenStream(cfg.Runtime, 2)
	if err != nil {
		return nil, fmt.Errorf("opening system %s as a stream: %w", cfg.System.Name, err)
	}
	return &detectorPolicy{cfg: cfg, stream: stream,
		eotRule: score.NewCommitter(fps, cfg.Threshold, cfg.Refractory),
		intRule: score.NewCommitter(fps, cfg.Threshold, cfg.Refractory)}, nil
}

// Step pushes one frame of both channels and acts on the commits of the
// score frames it completes: an INT commit while talking yields, an EOT
// commit while silent enters. Every frame goes through both committers,
// acted on or not, so the commits are the offline detector's.
func (p *detectorPolicy) Step(f Frame) (Act, error) {
	own := f.Own
	if own == nil {
		if p.silence == nil {
			p.silence = make([]float32, len(f.In))
		}
		own = p.silence
	}
	frames, err := p.stream.Push([][]float32{f.In, own})
	if err != nil {
		return Hold, fmt.Errorf("system %s: %w", p.cfg.System.Name, err)
	}
	talking := f.Own != nil
	act := Hold
	for _, fr := range frames {
		enter, claim := p.eotRule.Push(fr.EOT[0]), p.intRule.Push(fr.INT[0])
		switch {
		case claim && talking:
			act = Yield
		case enter && !talking && act == Hold:
			act = Speak
			if p.cfg.SpeakAtCommit {
				act = SpeakShort
			}
		}
	}
	return act, nil
}

func (p *detectorPolicy) Close() error { return p.stream.Close() }
