package detect

import (
	"fmt"

	"github.com/floorbench/floorbench/internal/audio"
)

// rowModel is a model that runs a batch of rows per session call, one row
// per speaker, each row carrying its own recurrent state (Silero, onnx):
// the rows of one conversation or, in Model.RunAll, of several.
type rowModel interface {
	model
	// layout is what a row reads: its channels (1, or 2 for
	// speaker-vs-rest), their sample rate and the frame and hop of their
	// windows.
	layout() rowLayout
	// newStepper makes a batch of rows rows, each with a zero state.
	newStepper(rows int) (stepper, error)
	// batchable reports whether rows of different conversations may share
	// a batch: every state tensor has a row per batch row, so no row's
	// values depend on another's.
	batchable() bool
}

// rowLayout is what one row of a row model reads each step: channels
// windows of frame samples at rate Hz, hop apart.
type rowLayout struct {
	channels, rate, frame, hop int
}

// stepper is a row model's batch: one session call per step over every
// row, each row's state carried from step to step.
type stepper interface {
	// window is row r's input of channel c for the next step, frame
	// samples.
	window(r, c int) []float32
	step() error
	// values are output t's values for row r after the last step: one, or
	// the frames of a time axis, oldest first.
	values(t, r int) []float32
	// resize makes the batch len(keep) rows: row i carries on with the
	// state row keep[i] had, or starts from a zero state where keep[i] is
	// -1.
	resize(keep []int) error
	close()
}

// rowGroup is one conversation's rows as samples arrive: the framers of
// each row's channels (row k's channel c at k·channels + c) and, for a
// model at another rate than 16 kHz, the resampler before each framer.
type rowGroup struct {
	layout     rowLayout
	framers    []*framer
	resamplers []*audio.Resampler
}

func newRowGroup(l rowLayout, speakers int) *rowGroup {
	g := &rowGroup{layout: l, framers: framers(speakers*l.channels, l.frame, l.hop)}
	if l.rate != SampleRate {
		for range g.framers {
			g.resamplers = append(g.resamplers, audio.NewResampler(SampleRate, l.rate))
		}
	}
	return g
}

// speakers is the number of rows.
func (g *rowGroup) speakers() int { return len(g.framers) / g.layout.channels }

// add appends the next samples of every speaker: a row of two channels
// also hears the sum of the other speakers (rest).
func (g *rowGroup) add(channels [][]float32) {
	c := g.layout.channels
	for k, ch := range channels {
		g.addTo(k*c, ch)
		if c == 2 {
			g.addTo(k*c+1, rest(channels, k))
		}
	}
}

// addTo appends samples to framer i, resampled to the model's rate: the
// resampler holds back the last few samples until the ones after them
// arrive.
func (g *rowGroup) addTo(i int, samples []float32) {
	if g.resamplers != nil {
		samples = g.resamplers[i].Push(samples)
	}
	g.framers[i].add(samples)
}

// ready reports whether every row has its next window: channels hear the
// same number of samples, so the first speaks for all.
func (g *rowGroup) ready() bool {
	_, ok := g.framers[0].window()
	return ok
}

// fill copies each row's next window into the stepper's rows from first
// on and moves on to the windows after.
func (g *rowGroup) fill(s stepper, first int) {
	for i, f := range g.framers {
		w, _ := f.window()
		copy(s.window(first+i/g.layout.channels, i%g.layout.channels), w)
		f.advance()
	}
}

// rest is the sum of every channel but k, clipped to [-1, 1].
func rest(timeline [][]float32, k int) []float32 {
	out := make([]float32, len(timeline[k]))
	for m, ch := range timeline {
		if m == k {
			continue
		}
		for i, s := range ch {
			out[i] += s
		}
	}
	for i, s := range out {
		out[i] = max(-1, min(1, s))
	}
	return out
}

// rowRun is a row model part way through one conversation: a batch of
// its speakers' rows.
type rowRun struct {
	stepper stepper
	group   *rowGroup
	outputs int
	steps   int
}

// startRows begins a conversation of a row model, one row per speaker.
func startRows(m rowModel, speakers int) (modelRun, error) {
	s, err := m.newStepper(speakers)
	if err != nil {
		return nil, err
	}
	return &rowRun{stepper: s, group: newRowGroup(m.layout(), speakers), outputs: len(m.outputs().roles)}, nil
}

func (r *rowRun) push(channels [][]float32, out [][][]float32) error {
	r.group.add(channels)
	for r.group.ready() {
		r.group.fill(r.stepper, 0)
		if err := r.stepper.step(); err != nil {
			return fmt.Errorf("step %d: %w", r.steps, err)
		}
		for t := range r.outputs {
			for k := range out[t] {
				out[t][k] = append(out[t][k], r.stepper.values(t, k)...)
			}
		}
		r.steps++
	}
	return nil
}

func (r *rowRun) close() error {
	r.stepper.close()
	return nil
}

// rowBlocks says where each row's part of a tensor lies: the tensor's
// dimensions before its batch dimension make outer blocks, each holding
// every row's inner values in turn.
type rowBlocks struct{ outer, inner int }

// blocksOf is the row blocks of a tensor of dimensions dims whose batch
// dimension is at index at.
func blocksOf(dims []int64, at int) rowBlocks {
	b := rowBlocks{outer: 1, inner: 1}
	for i, d := range dims {
		switch {
		case i < at:
			b.outer *= int(d)
		case i > at:
			b.inner *= int(d)
		}
	}
	return b
}

// copyRows fills dst, a tensor of len(keep) rows, from src, one of
// srcRows rows: dst's row i gets src's row keep[i], or zeros where
// keep[i] is -1.
func (b rowBlocks) copyRows(dst, src []float32, srcRows int, keep []int) {
	for o := range b.outer {
		for i, r := range keep {
			to := dst[(o*len(keep)+i)*b.inner:][:b.inner]
			if r < 0 {
				clear(to)
				continue
			}
			copy(to, src[(o*srcRows+r)*b.inner:][:b.inner])
		}
	}
}
