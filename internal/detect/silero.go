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

func (s *sileroModel) layout() rowLayout {
	return rowLayout{channels: 1, rate: SampleRate, frame: sileroContext + sileroHop, hop: sileroHop}
}

func (s *sileroModel) batchable() bool { return true }

func (s *sileroModel) start(rows int) (modelRun, error) {
	r, err := startRows(s, rows)
	if err != nil {
		return nil, fmt.Errorf("silero: %w", err)
	}
	return r, nil
}

// sileroStepper holds the tensors of a batch of rows. The two state
// tensors swap roles each step, so the new state is never copied: cur is
// the one the next step reads.
type sileroStepper struct {
	session       *ort.DynamicAdvancedSession
	rows          int
	input, output *ort.Tensor[float32]
	state         [2]*ort.Tensor[float32]
	cur           int
	sr            *ort.Scalar[int64]
}

func (s *sileroModel) newStepper(rows int) (stepper, error) {
	st := &sileroStepper{session: s.session}
	if err := st.allocate(rows); err != nil {
		return nil, err
	}
	return st, nil
}

// allocate makes the tensors of a batch of rows rows, with a zero state.
func (s *sileroStepper) allocate(rows int) error {
	s.rows, s.cur = rows, 0
	var errs [5]error
	s.input, errs[0] = ort.NewEmptyTensor[float32](ort.NewShape(int64(rows), sileroContext+sileroHop))
	s.output, errs[1] = ort.NewEmptyTensor[float32](ort.NewShape(int64(rows), 1))
	s.state[0], errs[2] = ort.NewEmptyTensor[float32](ort.NewShape(2, int64(rows), sileroState))
	s.state[1], errs[3] = ort.NewEmptyTensor[float32](ort.NewShape(2, int64(rows), sileroState))
	s.sr, errs[4] = ort.NewScalar(int64(SampleRate))
	if err := errors.Join(errs[:]...); err != nil {
		s.close()
		return err
	}
	return nil
}

func (s *sileroStepper) window(r, _ int) []float32 {
	const width = sileroContext + sileroHop
	return s.input.GetData()[r*width : (r+1)*width]
}

func (s *sileroStepper) step() error {
	cur, next := s.state[s.cur], s.state[1-s.cur]
	if err := s.session.Run([]ort.Value{s.input, cur, s.sr}, []ort.Value{s.output, next}); err != nil {
		return err
	}
	s.cur = 1 - s.cur
	return nil
}

func (s *sileroStepper) values(_, r int) []float32 { return s.output.GetData()[r : r+1] }

// sileroStateRows: the state is [2, rows, 128].
var sileroStateRows = rowBlocks{outer: 2, inner: sileroState}

func (s *sileroStepper) resize(keep []int) error {
	old, rows := s.state[s.cur].GetData(), s.rows
	state := make([]float32, len(old))
	copy(state, old)
	s.close()
	if err := s.allocate(len(keep)); err != nil {
		return err
	}
	sileroStateRows.copyRows(s.state[0].GetData(), state, rows, keep)
	return nil
}

func (s *sileroStepper) close() {
	for _, t := range []*ort.Tensor[float32]{s.input, s.output, s.state[0], s.state[1]} {
		if t != nil {
			t.Destroy()
		}
	}
	if s.sr != nil {
		s.sr.Destroy()
	}
	s.input, s.output, s.state, s.sr = nil, nil, [2]*ort.Tensor[float32]{}, nil
}
