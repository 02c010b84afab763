package detect

import "context"

// grid places a model's values on the output grid as samples are heard
// (package documentation, "From voice activity to floor scores"): frame i
// is complete once heardBy(i) samples have been heard and the model has
// given the value that covers them, and takes, per output
// and speaker, the latest value whose samples had all been heard by then;
// 0 before the first one.
type grid struct {
	fps   float64
	hop   int
	heard int // samples heard
	frame int // the next frame's index
	// pending[t][k] holds output t's values for speaker k from value index
	// first on: the earlier ones no frame reads any more.
	pending [][][]float32
	first   int
	placed  int // the value index the last frame read: no later frame reads an earlier one
	values  [][]float64
}

func newGrid(out modelOutputs, speakers int, fps float64) *grid {
	g := &grid{fps: fps, hop: out.hop}
	for range out.roles {
		g.pending = append(g.pending, make([][]float32, speakers))
		g.values = append(g.values, make([]float64, speakers))
	}
	return g
}

// hear pushes the next samples of every channel through run and keeps the
// values they complete.
func (g *grid) hear(run modelRun, channels [][]float32) error {
	if drop := g.placed - g.first; drop > 0 {
		for _, out := range g.pending {
			for k, v := range out {
				out[k] = v[:copy(v, v[drop:])]
			}
		}
		g.first = g.placed
	}
	if err := run.push(channels, g.pending); err != nil {
		return err
	}
	g.heard += len(channels[0])
	return nil
}

// next places the next frame if all its samples have been heard and the
// model has given its value. The values, [output][speaker], are valid
// until the next call.
func (g *grid) next() ([][]float64, bool) {
	if !g.ready(g.frame) {
		return nil, false
	}
	return g.place(heardBy(g.frame, g.fps)/g.hop - 1), true
}

// ready reports whether frame i can be placed: its samples have all been
// heard and its value given. A model whose step gives several values (or
// whose resampler holds samples back) gives a value after the samples it
// covers, at the end of its step.
func (g *grid) ready(i int) bool {
	end := heardBy(i, g.fps)
	return end <= g.heard && end/g.hop-1-g.first < len(g.pending[0][0])
}

// complete is how many frames the samples heard complete that next has not
// placed yet.
func (g *grid) complete() int {
	n := 0
	for g.ready(g.frame + n) {
		n++
	}
	return n
}

// pastEnd places the next frame although its end lies past the samples
// heard: a conversation's floor(duration·fps) frames can end a rounding
// error past its floor(duration·SampleRate) samples, and such a last frame
// keeps the last value.
func (g *grid) pastEnd() [][]float64 {
	return g.place(min(heardBy(g.frame, g.fps), g.heard)/g.hop - 1)
}

func (g *grid) place(j int) [][]float64 {
	for t, out := range g.pending {
		for k, v := range out {
			g.values[t][k] = 0
			if j >= 0 {
				g.values[t][k] = float64(v[j-g.first])
			}
		}
	}
	g.placed = max(j, 0)
	g.frame++
	return g.values
}

// place walks the grid of fps frames per second over a model's output for
// a whole conversation: frame(i, values) for each of its
// frameCount(Duration, fps) frames, with the values, [output][speaker],
// that the grid gives frame i as the conversation is heard (valid until
// the next call). A frame whose end lies a rounding error past the
// conversation's samples keeps the last value (pastEnd).
func place(out *ModelOutput, fps float64, frame func(i int, values [][]float64)) {
	g := newGrid(modelOutputs{hop: out.Hop, roles: out.Roles}, out.Speakers(), fps)
	g.pending, g.heard = out.Values, samplesIn(out.Duration)
	for i := range frameCount(out.Duration, fps) {
		values, ok := g.next()
		if !ok {
			values = g.pastEnd()
		}
		frame(i, values)
	}
}

// activityOnGrid is a voice activity model's only output, per speaker, on
// the grid of fps frames per second for a whole conversation.
func activityOnGrid(ctx context.Context, m model, c *Conversation, fps float64) ([][]float64, error) {
	out, err := runModel(ctx, m, c)
	if err != nil {
		return nil, err
	}
	grid, _ := newTracks(c.speakers(), frameCount(c.Duration, fps))
	place(out, fps, func(i int, values [][]float64) {
		for k, a := range values[0] {
			grid[k][i] = a
		}
	})
	return grid, nil
}
