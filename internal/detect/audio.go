package detect

import (
	"context"
	"fmt"
	"slices"
)

// audioDetector is a detector of a family that scores audio: its model,
// the model's values on the output grid, and for voice activity the
// family's floor mapping. Detect runs the two stages one after the other
// over a whole conversation (runModel, mapOutput); a Stream steps them
// together as audio arrives.
type audioDetector struct {
	model   model
	mapping FloorMapping
	fps     float64
}

// openAudio opens the detector of a system whose family scores audio.
func (s *System) openAudio(rt Runtime) (*audioDetector, error) {
	fps, mapping, err := s.floorStage()
	if err != nil {
		return nil, err
	}
	m, err := s.openModel(rt)
	if err != nil {
		return nil, err
	}
	return &audioDetector{model: m, mapping: mapping, fps: fps}, nil
}

// floorStage is the system's output grid and floor mapping.
func (s *System) floorStage() (float64, FloorMapping, error) {
	fps, err := s.values.frameRate()
	if err != nil {
		return 0, nil, err
	}
	mapping, err := s.family.mapping(s.values)
	if err != nil {
		return 0, nil, err
	}
	return fps, mapping, nil
}

func (d *audioDetector) Detect(ctx context.Context, c *Conversation) (*Scores, error) {
	out, err := runModel(ctx, d.model, c)
	if err != nil {
		return nil, err
	}
	return mapOutput(out, d.mapping, d.fps), nil
}

func (d *audioDetector) Close() error { return d.model.close() }

// mapOutput is the floor stage over a whole conversation: the model's
// output on the grid, each frame scored by the floor mapping, with the
// tracks of the tasks its outputs score (tasksOfRoles) only.
func mapOutput(out *ModelOutput, mapping FloorMapping, fps float64) *Scores {
	speakers := out.Speakers()
	sc := newScorer(modelOutputs{hop: out.Hop, roles: out.Roles}, mapping, speakers, fps)
	s := &Scores{FrameRate: fps}
	s.EOT, s.INT = newTracks(speakers, frameCount(out.Duration, fps))
	place(out, fps, func(i int, values [][]float64) {
		eot, intr := sc.score(values)
		for k := range eot {
			s.EOT[k][i], s.INT[k][i] = eot[k], intr[k]
		}
	})
	s.keepTasks(tasksOfRoles(out.Roles))
	return s
}

// scorer is the floor stage part way through one conversation: the
// model's values on the grid and the floor mapping's state, stepped one
// frame at a time.
type scorer struct {
	grid  *grid
	floor FloorState // nil where the model has no voice activity output
	// activity, eotOut and intOut are the model's outputs of each role,
	// -1 where it has none: direct eot and int outputs replace the
	// mapping's scores.
	activity, eotOut, intOut int
	eot, intr                []float64
}

func newScorer(out modelOutputs, mapping FloorMapping, speakers int, fps float64) *scorer {
	sc := &scorer{
		grid:     newGrid(out, speakers, fps),
		activity: slices.Index(out.roles, RoleActivity),
		eotOut:   slices.Index(out.roles, RoleEOT),
		intOut:   slices.Index(out.roles, RoleINT),
		eot:      make([]float64, speakers), intr: make([]float64, speakers),
	}
	if sc.activity >= 0 {
		sc.floor = mapping.Start(speakers, fps)
	}
	return sc
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

// fileChunk is how many samples per channel the whole-file path pushes at
// a time, about a second: a context is checked between pushes.
const fileChunk = 1 << 14

// runModel is the model stage over a whole conversation: its timeline
// pushed through a run of m in chunks.
func runModel(ctx context.Context, m model, c *Conversation) (*ModelOutput, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	run, err := m.start(c.speakers())
	if err != nil {
		return nil, fmt.Errorf("conversation %q: %w", c.ID, err)
	}
	defer run.close()
	timeline, err := readTimeline(c)
	if err != nil {
		return nil, err
	}
	defer timeline.close()
	out := newModelOutput(m.outputs(), c.speakers(), c.Duration)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		chunk, err := timeline.next()
		if err != nil {
			return nil, err
		}
		if chunk == nil {
			break
		}
		if err := run.push(chunk, out.Values); err != nil {
			return nil, err
		}
	}
	out.pad()
	return out, nil
}
