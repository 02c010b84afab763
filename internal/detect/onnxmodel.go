package detect

import (
	"fmt"
	"slices"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/floorbench/floorbench/internal/features"
)

// maxTensorElements bounds every tensor a spec can ask for (256 Mi floats,
// 1 GiB), so a mistyped shape is an error rather than an allocation failure.
const maxTensorElements = 1 << 28

// onnxModel runs a model described by an OnnxSpec (the onnx family).
type onnxModel struct {
	spec    *OnnxSpec
	session *ort.DynamicAdvancedSession
	// scoreOutputs are the distinct outputs the scores read, in spec order;
	// the session's outputs are scoreOutputs then the state outputs.
	scoreOutputs []string
	tensors      modelTensors
	// hop is how many conversation samples each value moves on.
	hop int
	// mel is the Whisper front end's window and filter bank, made once
	// for every stepper of the model.
	mel *features.WhisperLogMel
}

func openONNXModel(s *System, _ values, rt Runtime) (model, error) {
	path, err := s.modelFile(rt)
	if err != nil {
		return nil, err
	}
	if err := rt.initONNXRuntime(); err != nil {
		return nil, err
	}
	ins, outs, err := ort.GetInputOutputInfo(path)
	if err != nil {
		return nil, fmt.Errorf("onnx: read model %s: %w", path, err)
	}
	spec := s.onnx
	m := &onnxModel{spec: spec}
	if m.tensors, err = spec.matchModel(ins, outs); err != nil {
		return nil, fmt.Errorf("onnx: spec does not match model %s: %w", path, err)
	}
	if m.hop, err = spec.valueHop(); err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	if f := spec.FrontEnd; f != nil && f.Kind == FrontEndWhisperLogMel {
		if m.mel, err = features.NewWhisperLogMel(f.MelBins, spec.Frame); err != nil {
			return nil, fmt.Errorf("onnx: front_end: %w", err)
		}
	}
	for _, sc := range spec.Scores {
		if !slices.Contains(m.scoreOutputs, sc.Output) {
			m.scoreOutputs = append(m.scoreOutputs, sc.Output)
		}
	}
	var inputs []string
	for _, a := range spec.audioInputs() {
		inputs = append(inputs, a.Name)
	}
	if mask := spec.attentionMask(); mask != "" {
		inputs = append(inputs, mask)
	}
	outputs := slices.Clone(m.scoreOutputs)
	for _, st := range spec.State {
		inputs, outputs = append(inputs, st.Input), append(outputs, st.Output)
	}
	for _, c := range spec.Constants {
		inputs = append(inputs, c.Name)
	}
	if m.session, err = rt.newSession(path, inputs, outputs); err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	return m, nil
}

// outputs are the spec's scores in spec order: each role appears once.
func (m *onnxModel) outputs() modelOutputs {
	roles := make([]string, len(m.spec.Scores))
	for t, sc := range m.spec.Scores {
		roles[t] = sc.Role
	}
	return modelOutputs{hop: m.hop, roles: roles}
}

func (m *onnxModel) close() error { return m.session.Destroy() }

func (m *onnxModel) layout() rowLayout {
	return rowLayout{channels: m.spec.channels(), rate: m.spec.SampleRate, frame: m.spec.Frame, hop: m.spec.Hop}
}

// batchable: every state has a batch dimension, so each row's state is
// its own (a model that runs its rows one at a time has one).
func (m *onnxModel) batchable() bool {
	for _, st := range m.spec.State {
		if !slices.Contains(st.Shape, "batch") {
			return false
		}
	}
	return true
}

func (m *onnxModel) start(rows int) (modelRun, error) {
	if m.spec.ChannelLayout == LayoutSpeakerVsRest && rows < 2 {
		return nil, fmt.Errorf("layout %s needs at least 2 speakers, got %d", LayoutSpeakerVsRest, rows)
	}
	r, err := startRows(m, rows)
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	return r, nil
}

// onnxStepper holds a stepper's batches: one of every row, or one per row
// where the model fixes its batch at 1.
type onnxStepper struct {
	model   *onnxModel
	batches []*onnxBatch
	// fronts turn the rows' windows into the audio input, one per
	// goroutine (rowFeatures), shared by every batch.
	fronts []*frontEnd
}

// onnxBatch is the input tensors of one session call and, after each
// step, its rows' scores.
type onnxBatch struct {
	rows   int
	audio  []*ort.Tensor[float32] // one, or one per channel (audio_channels)
	states []*ort.Tensor[float32]
	// half are the float16 score outputs, made here (by scoreOutputs
	// index; nil for float32 ones, which the session makes).
	half   []*ort.CustomDataTensor
	inputs []ort.Value
	// scores[t] holds score t's values, frames per step for each row.
	scores [][]float32
	// With a front end: the rows' windows, channel by channel, how many
	// samples of its window each row has heard, and the attention mask
	// (nil without one).
	windows []float32
	heard   []int
	mask    *ort.Tensor[int64]
}

func (m *onnxModel) newStepper(rows int) (stepper, error) {
	s := &onnxStepper{model: m}
	n, size := 1, rows
	if m.tensors.oneRow {
		n, size = rows, 1
	}
	for range n {
		b, err := m.newBatch(size)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("onnx: %w", err)
		}
		s.batches = append(s.batches, b)
	}
	return s, nil
}

// newBatch makes the tensors of a batch of rows rows, with a zero state.
func (m *onnxModel) newBatch(rows int) (*onnxBatch, error) {
	b := &onnxBatch{rows: rows}
	if err := b.allocate(m); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *onnxBatch) allocate(m *onnxModel) error {
	c, rows := m.spec.channels(), b.rows
	tensor := func(shape []string) (*ort.Tensor[float32], error) {
		dims, err := resolveShape(shape, rows, c, m.spec.Frame)
		if err != nil {
			return nil, err
		}
		if n := ort.NewShape(dims...); n.FlattenedSize() > maxTensorElements || n.FlattenedSize() < 1 {
			return nil, fmt.Errorf("shape %v: %d elements, more than %d", shape, n.FlattenedSize(), maxTensorElements)
		}
		t, err := ort.NewEmptyTensor[float32](ort.NewShape(dims...))
		if err == nil {
			b.inputs = append(b.inputs, t)
		}
		return t, err
	}
	audio := m.spec.audioInputs()
	for _, a := range audio {
		t, err := tensor(a.Shape)
		if err != nil {
			return fmt.Errorf("audio %s: %w", a.Name, err)
		}
		if got, want := len(t.GetData()), rows*c*m.spec.channelValues()/len(audio); got != want {
			return fmt.Errorf("audio %s shape %v holds %d values, the layout needs %d", a.Name, a.Shape, got, want)
		}
		b.audio = append(b.audio, t)
	}
	if m.spec.FrontEnd != nil {
		b.windows, b.heard = make([]float32, rows*c*m.spec.Frame), make([]int, rows)
	}
	if m.spec.attentionMask() != "" {
		t, err := ort.NewEmptyTensor[int64](b.audio[0].GetShape())
		if err != nil {
			return fmt.Errorf("attention mask: %w", err)
		}
		b.mask = t
		b.inputs = append(b.inputs, t)
	}
	for _, st := range m.spec.State {
		t, err := tensor(st.Shape)
		if err != nil {
			return fmt.Errorf("state %s: %w", st.Input, err)
		}
		b.states = append(b.states, t)
	}
	for _, k := range m.spec.Constants {
		v, err := newConstant(k, rows, c, m.spec.Frame)
		if err != nil {
			return fmt.Errorf("constant %s: %w", k.Name, err)
		}
		b.inputs = append(b.inputs, v)
	}
	b.half = make([]*ort.CustomDataTensor, len(m.scoreOutputs))
	for i, name := range m.scoreOutputs {
		dims, ok := m.tensors.half[name]
		if !ok {
			continue
		}
		shape := ort.NewShape(slices.Concat([]int64{int64(rows)}, dims[1:])...)
		t, err := ort.NewCustomDataTensor(shape, make([]byte, 2*shape.FlattenedSize()), ort.TensorElementDataTypeFloat16)
		if err != nil {
			return fmt.Errorf("output %s: %w", name, err)
		}
		b.half[i] = t
	}
	b.scores = make([][]float32, len(m.spec.Scores))
	for t := range b.scores {
		b.scores[t] = make([]float32, rows*m.spec.framesPerStep())
	}
	return nil
}

func newConstant(k ConstantSpec, rows, channels, frame int) (ort.Value, error) {
	dims, err := resolveShape(k.Shape, rows, channels, frame)
	if err != nil {
		return nil, err
	}
	shape := ort.NewShape(dims...)
	if shape.FlattenedSize() > maxTensorElements {
		return nil, fmt.Errorf("shape %v: too many elements", k.Shape)
	}
	switch {
	case k.Type == "int64" && len(dims) == 0:
		return ort.NewScalar(int64(k.Value))
	case k.Type == "int64":
		return ort.NewTensor(shape, slices.Repeat([]int64{int64(k.Value)}, int(shape.FlattenedSize())))
	case len(dims) == 0:
		return ort.NewScalar(float32(k.Value))
	default:
		return ort.NewTensor(shape, slices.Repeat([]float32{float32(k.Value)}, int(shape.FlattenedSize())))
	}
}

func (b *onnxBatch) close() {
	for _, v := range b.inputs {
		v.Destroy()
	}
	for _, v := range b.half {
		if v != nil {
			v.Destroy()
		}
	}
	b.inputs, b.half = nil, nil
}

func (s *onnxStepper) close() {
	for _, b := range s.batches {
		b.close()
	}
	s.batches = nil
}

// row finds row r: its batch and its row in that batch.
func (s *onnxStepper) row(r int) (*onnxBatch, int) {
	if s.model.tensors.oneRow {
		return s.batches[r], 0
	}
	return s.batches[0], r
}

func (s *onnxStepper) window(r, c int) []float32 {
	b, r := s.row(r)
	frame := s.model.spec.Frame
	if b.windows != nil {
		at := (r*s.model.spec.channels() + c) * frame
		return b.windows[at : at+frame]
	}
	if len(b.audio) > 1 {
		return b.audio[c].GetData()[r*frame : (r+1)*frame]
	}
	at := (r*s.model.spec.channels() + c) * frame
	return b.audio[0].GetData()[at : at+frame]
}

func (s *onnxStepper) values(t, r int) []float32 {
	b, r := s.row(r)
	n := s.model.spec.framesPerStep()
	return b.scores[t][r*n : (r+1)*n]
}

// step runs the model once for every batch, after computing every row's
// features where the model has a front end.
func (s *onnxStepper) step() error {
	if s.model.spec.FrontEnd != nil {
		if err := s.rowFeatures(); err != nil {
			return err
		}
	}
	for _, b := range s.batches {
		if err := b.step(s.model); err != nil {
			return err
		}
	}
	return nil
}

// step runs the model once over the batch's rows, keeps each row's scores
// and feeds the state outputs back as the next step's state.
func (b *onnxBatch) step(m *onnxModel) error {
	outputs := make([]ort.Value, len(m.scoreOutputs)+len(b.states))
	for i, h := range b.half {
		if h != nil {
			outputs[i] = h
		}
	}
	defer func() {
		for i, v := range outputs {
			if v != nil && (i >= len(b.half) || b.half[i] == nil) {
				v.Destroy()
			}
		}
	}()
	if err := m.session.Run(b.inputs, outputs); err != nil {
		return err
	}
	for t, sc := range m.spec.Scores {
		out := outputs[slices.Index(m.scoreOutputs, sc.Output)]
		data, shape, err := outputFloats(out)
		if err != nil {
			return fmt.Errorf("output %s: %w", sc.Output, err)
		}
		if err := readScore(data, shape, sc, b.rows, b.scores[t]); err != nil {
			return err
		}
	}
	for i, st := range b.states {
		spec := m.spec.State[i]
		o, ok := outputs[len(m.scoreOutputs)+i].(*ort.Tensor[float32])
		if !ok {
			return fmt.Errorf("state output %s is not a float32 tensor", spec.Output)
		}
		if err := carry(st.GetData(), o.GetData(), b.rows, spec); err != nil {
			return err
		}
	}
	return nil
}

// carry makes a state output the next step's state input: the output
// itself, or for a queue the input with each row's oldest frames dropped
// and the output's appended.
func carry(in, out []float32, rows int, st StateSpec) error {
	if !st.Queue {
		if len(out) != len(in) {
			return fmt.Errorf("state output %s has %d values, its input %s %d", st.Output, len(out), st.Input, len(in))
		}
		copy(in, out)
		return nil
	}
	nIn, nOut := len(in)/rows, len(out)/rows
	if len(out)%rows != 0 || nOut < 1 || nOut > nIn || nIn%nOut != 0 {
		return fmt.Errorf("queue state output %s has %d values for %d rows; its input %s holds %d frames of them per row", st.Output, len(out), rows, st.Input, nIn)
	}
	for r := range rows {
		q := in[r*nIn : (r+1)*nIn]
		copy(q, q[nOut:])
		copy(q[nIn-nOut:], out[r*nOut:(r+1)*nOut])
	}
	return nil
}

// resize carries each kept row's state into a batch of len(keep) rows.
// Only batchable models' batches are resized.
func (s *onnxStepper) resize(keep []int) error {
	m := s.model
	if m.tensors.oneRow {
		return s.resizeRows(keep)
	}
	old := s.batches[0]
	var states [][]float32
	for _, st := range old.states {
		states = append(states, slices.Clone(st.GetData()))
	}
	s.close()
	b, err := m.newBatch(len(keep))
	if err != nil {
		return err
	}
	s.batches = []*onnxBatch{b}
	if b.heard != nil {
		for i, r := range keep {
			if r >= 0 {
				b.heard[i] = old.heard[r]
			}
		}
	}
	for i, st := range m.spec.State {
		dims, err := resolveShape(st.Shape, old.rows, m.spec.channels(), m.spec.Frame)
		if err != nil {
			return err
		}
		blocksOf(dims, slices.Index(st.Shape, "batch")).copyRows(b.states[i].GetData(), states[i], old.rows, keep)
	}
	return nil
}

// resizeRows is resize where each row is a batch of its own: kept rows
// keep their batch, new rows get a new one, the others are closed.
func (s *onnxStepper) resizeRows(keep []int) error {
	next := make([]*onnxBatch, len(keep))
	kept := map[int]bool{}
	for i, r := range keep {
		if r >= 0 {
			next[i], kept[r] = s.batches[r], true
			continue
		}
		b, err := s.model.newBatch(1)
		if err != nil {
			for j, n := range next[:i] {
				if keep[j] < 0 {
					n.close()
				}
			}
			return err
		}
		next[i] = b
	}
	for r, b := range s.batches {
		if !kept[r] {
			b.close()
		}
	}
	s.batches = next
	return nil
}
