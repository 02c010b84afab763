package detect

import (
	"context"
	"fmt"
	"slices"
)

// audioDetector is a detector of a family that scores audio: its model,
// the model's values on the output grid, and for voice activity the
// family's floor mapping. Detect and a Stream run the same scorer, the one
// over a whole conversation, the other as audio arrives.
type audioDetector struct {
	model   model
	mapping FloorMapping
	fps     float64
}

// openAudio opens the detector of a system whose family scores audio.
func (s *System) openAudio(rt Runtime) (*audioDetector, error) {
	fps, err := s.values.frameRate()
	if err != nil {
		return nil, err
	}
	mapping, err := s.family.mapping(s.values)
	if err != nil {
		return nil, err
	}
	m, err := s.family.openModel(s, rt)
	if err != nil {
		return nil, err
	}
	return &audioDetector{model: m, mapping: mapping, fps: fps}, nil
}

func (d *audioDetector) Detect(ctx context.Context, c *Conversation) (*Scores, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	sc, err := d.newScorer(len(c.Channels))
	if err != nil {
		return nil, fmt.Errorf("conversation %q: %w", c.ID, err)
	}
	defer sc.close()
	s := &Scores{FrameRate: d.fps}
	s.EOT, s.INT = newTracks(len(c.Channels), frameCount(c.Duration, d.fps))
	err = hearConversation(ctx, c, sc.run, sc.grid, func(i int, values [][]float64) {
		eot, intr := sc.score(values)
		for k := range eot {
			s.EOT[k][i], s.INT[k][i] = eot[k], intr[k]
		}
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (d *audioDetector) Close() error { return d.model.close() }

// scorer is an audio detector part way through one conversation: the model
// run, its values on the grid, and the floor mapping's state, stepped one
// frame at a time.
type scorer struct {
	run   modelRun
	grid  *grid
	floor FloorState // nil where the model has no voice activity output
	// activity, eotOut and intOut are the model's outputs of each role,
	// -1 where it has none: direct eot and int outputs replace the
	// mapping's scores.
	activity, eotOut, intOut int
	eot, intr                []float64
}

func (d *audioDetector) newScorer(speakers int) (*scorer, error) {
	run, err := d.model.start(speakers)
	if err != nil {
		return nil, err
	}
	out := d.model.outputs()
	sc := &scorer{
		run: run, grid: newGrid(out, speakers, d.fps),
		activity: slices.Index(out.roles, RoleActivity),
		eotOut:   slices.Index(out.roles, RoleEOT),
		intOut:   slices.Index(out.roles, RoleINT),
		eot:      make([]float64, speakers), intr: make([]float64, speakers),
	}
	if sc.activity >= 0 {
		sc.floor = d.mapping.Start(speakers, d.fps)
	}
	return sc, nil
}

// score derives a frame's scores from its values on the grid. The slices
// are valid until the next call.
func (sc *scorer) score(values [][]float64) (eot, intr []float64) {
	if sc.floor != nil {
		sc.floor.Step(values[sc.activity], sc.eot, sc.intr)
	}
	if sc.eotOut >= 0 {
		copy(sc.eot, values[sc.eotOut])
	}
	if sc.intOut >= 0 {
		copy(sc.intr, values[sc.intOut])
	}
	return sc.eot, sc.intr
}

func (sc *scorer) close() error { return sc.run.close() }
