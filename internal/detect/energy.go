package detect

import "context"

// EnergyActivity is the voice activity of the built-in rms system with its
// default parameters, placed causally on the grid of fps frames per second:
// per speaker, 1 where frame i's speaker is speaking by the frame's end,
// else 0. The corpus audit reads it, so trivial rules see speech exactly as
// the rms baseline does.
func EnergyActivity(ctx context.Context, c *Conversation, fps float64) ([][]float64, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	s, err := Builtin("rms")
	if err != nil {
		return nil, err
	}
	m, err := newRMSModel(s.values)
	if err != nil {
		return nil, err
	}
	return activityOnGrid(ctx, m, c, fps)
}
