package detect

import "context"

// voiceActivity is the first stage of an acoustic detector: per-speaker voice
// activity from the channels, causally, at the detector's own hop.
type voiceActivity interface {
	activity(ctx context.Context, channels [][]float32) (*activity, error)
	close() error
}

// acousticDetector is a voice-activity stage followed by its family's floor
// mapping on the output grid.
type acousticDetector struct {
	vad     voiceActivity
	mapping FloorMapping
	fps     float64
}

func newAcousticDetector(vad voiceActivity, s *System) (*acousticDetector, error) {
	fps, err := s.values.frameRate()
	if err != nil {
		return nil, err
	}
	m, err := s.family.mapping(s.values)
	if err != nil {
		return nil, err
	}
	return &acousticDetector{vad: vad, mapping: m, fps: fps}, nil
}

func (d *acousticDetector) Detect(ctx context.Context, c *Conversation) (*Scores, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	act, err := d.vad.activity(ctx, c.timeline())
	if err != nil {
		return nil, err
	}
	grid := act.onGrid(frameCount(c.Duration, d.fps), d.fps)
	eot, intr := d.mapping.Apply(grid, d.fps)
	return &Scores{FrameRate: d.fps, EOT: eot, INT: intr}, nil
}

func (d *acousticDetector) Close() error { return d.vad.close() }
