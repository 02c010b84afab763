package detect

import (
	"context"
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

// sileroActivity runs Silero VAD v5 with every channel of a conversation as
// one row of a batch, so one session call serves all speakers per step.
type sileroActivity struct {
	session *ort.DynamicAdvancedSession
}

func newSileroActivity(rt Runtime, model string) (*sileroActivity, error) {
	s, err := rt.newSession(model, []string{"input", "state", "sr"}, []string{"output", "stateN"})
	if err != nil {
		return nil, fmt.Errorf("silero: %w", err)
	}
	return &sileroActivity{session: s}, nil
}

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

func (s *sileroActivity) activity(ctx context.Context, channels [][]float32) (*activity, error) {
	rows := len(channels)
	b, err := newSileroBatch(rows)
	if err != nil {
		return nil, fmt.Errorf("silero: %w", err)
	}
	defer b.destroy()
	act := newActivity(rows, sileroHop, sileroHop)
	n := steps(len(channels[0]), sileroHop, sileroHop)
	for k := range act.values {
		act.values[k] = make([]float32, n)
	}
	in, out := b.input.GetData(), b.output.GetData()
	const width = sileroContext + sileroHop
	for j := 0; j < n; j++ {
		if j%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for k, ch := range channels {
			fillWindow(in[k*width:(k+1)*width], ch, (j+1)*sileroHop)
		}
		cur, next := b.state[j%2], b.state[(j+1)%2]
		if err := s.session.Run([]ort.Value{b.input, cur, b.sr}, []ort.Value{b.output, next}); err != nil {
			return nil, fmt.Errorf("silero: step %d: %w", j, err)
		}
		for k := range act.values {
			act.values[k][j] = out[k]
		}
	}
	return act, nil
}

// fillWindow copies the len(dst) samples of ch that end at sample end into
// dst, with zeros for samples before the start of the channel.
func fillWindow(dst, ch []float32, end int) {
	start := end - len(dst)
	if start >= 0 {
		copy(dst, ch[start:end])
		return
	}
	clear(dst[:-start])
	copy(dst[-start:], ch[:end])
}

func (s *sileroActivity) close() error { return s.session.Destroy() }
