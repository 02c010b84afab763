package detect

import (
	"errors"
	"fmt"

	ort "github.com/yalue/onnxruntime_go"
)

// Silero VAD v5's framing at 16 kHz: each step reads 512 new samples with
// the previous step's last 64 prepended, and a recurrent state of 2 x 128
// per channel that the caller carries from step to step.
const (
	sileroHop     = 512
	sileroContext = 64
	sileroState   = 128
)

// sileroModel runs Silero VAD v5 with every channel of a conversation as
// one row of a batch, so one session call serves all speakers per step.
type sileroModel struct {
	session *ort.DynamicAdvancedSession
}

func newSileroModel(rt Runtime, model string) (*sileroModel, error) {
	s, err := rt.newSession(model, []string{"input", "state", "sr"}, []string{"output", "stateN"})
	if err != nil {
		return nil, fmt.Errorf("silero: %w", err)
	}
	return &sileroModel{session: s}, nil
}

func (s *sileroModel) outputs() modelOutputs {
	return modelOutputs{hop: sileroHop, roles: activityOnly}
}

func (s *sileroModel) close() error { return s.session.Destroy() }

// sileroBatch holds the tensors of one conversation's steps. The two state
// tensors swap roles each step, so the new state is never copied.
type sileroBatch struct {
	input, output *ort.Tensor[float32]
	state         [2]*ort.Tensor[float32]
	sr            *ort.Scalar[int64]
}

func newSileroBatch(rows int) (*sileroBatch, error) {
	b := &sileroBatch{}
	var errs [5]error
	b.input, errs[0] = ort.NewEmptyTensor[float32](ort.NewShape(int64(rows), sileroContext+sileroHop))
	b.output, errs[1] = ort.NewEmptyTensor[float32](ort.NewShape(int64(rows), 1))
	b.state[0], errs[2] = ort.NewEmptyTensor[float32](ort.NewShape(2, int64(rows), sileroState))
	b.state[1], errs[3] = ort.NewEmptyTensor[float32](ort.NewShape(2, int64(rows), sileroState))
	b.sr, errs[4] = ort.NewScalar(int64(SampleRate))
	if err := errors.Join(errs[:]...); err != nil {
		b.destroy()
		return nil, err
	}
	return b, nil
}

func (b *sileroBatch) destroy() {
	for _, t := range []*ort.Tensor[float32]{b.input, b.output, b.state[0], b.state[1]} {
		if t != nil {
			t.Destroy()
		}
	}
	if b.sr != nil {
		b.sr.Destroy()
	}
}

func (s *sileroModel) start(rows int) (modelRun, error) {
	b, err := newSileroBatch(rows)
	if err != nil {
		return nil, fmt.Errorf("silero: %w", err)
	}
	return &sileroRun{session: s.session, batch: b, framers: framers(rows, sileroContext+sileroHop, sileroHop)}, nil
}

// sileroRun is a conversation part way through: its rows' windows, and in
// the batch the recurrent state of step steps.
type sileroRun struct {
	session *ort.DynamicAdvancedSession
	batch   *sileroBatch
	framers []*framer
	steps   int
}

func (r *sileroRun) push(channels [][]float32, out [][][]float32) error {
	for k, ch := range channels {
		r.framers[k].add(ch)
	}
	b := r.batch
	in, res := b.input.GetData(), b.output.GetData()
	const width = sileroContext + sileroHop
	for r.ready() {
		for k, f := range r.framers {
			w, _ := f.window()
			copy(in[k*width:(k+1)*width], w)
			f.advance()
		}
		j := r.steps
		cur, next := b.state[j%2], b.state[(j+1)%2]
		if err := r.session.Run([]ort.Value{b.input, cur, b.sr}, []ort.Value{b.output, next}); err != nil {
			return fmt.Errorf("silero: step %d: %w", j, err)
		}
		for k := range out[0] {
			out[0][k] = append(out[0][k], res[k])
		}
		r.steps++
	}
	return nil
}

// ready reports whether every row has its next window: rows hear the same
// number of samples, so the first row speaks for all.
func (r *sileroRun) ready() bool {
	_, ok := r.framers[0].window()
	return ok
}

func (r *sileroRun) close() error {
	r.batch.destroy()
	return nil
}
