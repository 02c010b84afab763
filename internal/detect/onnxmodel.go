package detect

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

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
	if err := spec.matchModel(ins, outs); err != nil {
		return nil, fmt.Errorf("onnx: spec does not match model %s: %w", path, err)
	}
	m := &onnxModel{spec: spec}
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
	inputs := []string{spec.Audio.Name}
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
	return modelOutputs{hop: m.spec.Hop, roles: roles}
}

func (m *onnxModel) close() error { return m.session.Destroy() }

// matchModel checks the spec against the model's inputs and outputs: every
// tensor the spec names exists with the right element type and fixed sizes,
// and every model input is given.
func (o *OnnxSpec) matchModel(ins, outs []ort.InputOutputInfo) error {
	byName := func(list []ort.InputOutputInfo) map[string]ort.InputOutputInfo {
		m := map[string]ort.InputOutputInfo{}
		for _, x := range list {
			m[x.Name] = x
		}
		return m
	}
	names := func(list []ort.InputOutputInfo) string {
		s := make([]string, len(list))
		for i, x := range list {
			s[i] = x.Name
		}
		return strings.Join(s, ", ")
	}
	modelIn, modelOut := byName(ins), byName(outs)
	given := map[string]bool{}
	input := func(name string, shape []string, dtype ort.TensorElementDataType) error {
		info, ok := modelIn[name]
		if !ok {
			return fmt.Errorf("the spec names input %q; the model's inputs are %s", name, names(ins))
		}
		given[name] = true
		if info.DataType != dtype {
			return fmt.Errorf("input %q is %s in the model, the spec gives %s", name, typeName(info.DataType), typeName(dtype))
		}
		return matchDims(name, info.Dimensions, shape, o.channels(), o.Frame)
	}
	errs := []error{input(o.Audio.Name, o.Audio.Shape, ort.TensorElementDataTypeFloat)}
	if mask := o.attentionMask(); mask != "" {
		errs = append(errs, input(mask, o.Audio.Shape, ort.TensorElementDataTypeInt64))
	}
	for _, st := range o.State {
		errs = append(errs, input(st.Input, st.Shape, ort.TensorElementDataTypeFloat))
		if _, ok := modelOut[st.Output]; !ok {
			errs = append(errs, fmt.Errorf("the spec names state output %q; the model's outputs are %s", st.Output, names(outs)))
		}
	}
	for _, c := range o.Constants {
		var dtype ort.TensorElementDataType = ort.TensorElementDataTypeFloat
		if c.Type == "int64" {
			dtype = ort.TensorElementDataTypeInt64
		}
		errs = append(errs, input(c.Name, c.Shape, dtype))
	}
	for _, sc := range o.Scores {
		info, ok := modelOut[sc.Output]
		if !ok {
			errs = append(errs, fmt.Errorf("the spec names output %q; the model's outputs are %s", sc.Output, names(outs)))
		} else if info.DataType != ort.TensorElementDataTypeFloat {
			errs = append(errs, fmt.Errorf("output %q is %s; scores are read from float32 outputs", sc.Output, typeName(info.DataType)))
		}
	}
	for _, in := range ins {
		if !given[in.Name] {
			errs = append(errs, fmt.Errorf("the model's input %q is not in the spec (as audio, attention mask, state or constant)", in.Name))
		}
	}
	// One line, however many mismatches: command-line errors are one line.
	var msgs []string
	for _, err := range errs {
		if err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}

// typeName spells an element type as specs do.
func typeName(t ort.TensorElementDataType) string {
	switch t {
	case ort.TensorElementDataTypeFloat:
		return "float32"
	case ort.TensorElementDataTypeInt64:
		return "int64"
	}
	return t.String()
}

// matchDims compares a symbolic shape with a model input's dimensions, where
// the model fixes them (the batch size is always free).
func matchDims(name string, model ort.Shape, shape []string, channels, frame int) error {
	if len(model) != len(shape) {
		return fmt.Errorf("input %q has %d dimensions %v in the model, the spec gives %d %v", name, len(model), model, len(shape), shape)
	}
	dims, err := resolveShape(shape, 1, channels, frame)
	if err != nil {
		return fmt.Errorf("input %q: %w", name, err)
	}
	for i, d := range model {
		if d > 0 && shape[i] != "batch" && d != dims[i] {
			return fmt.Errorf("input %q dimension %d is %d in the model, the spec gives %s = %d", name, i, d, shape[i], dims[i])
		}
	}
	return nil
}

func (m *onnxModel) layout() rowLayout {
	return rowLayout{channels: m.spec.channels(), frame: m.spec.Frame, hop: m.spec.Hop}
}

// batchable: every state has a batch dimension, so each row's state is
// its own.
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

// onnxStepper holds a batch's input tensors and, after each step, every
// row's scores.
type onnxStepper struct {
	model  *onnxModel
	rows   int
	audio  *ort.Tensor[float32]
	states []*ort.Tensor[float32]
	inputs []ort.Value
	// scores[t][r] is score t's value for row r after the last step.
	scores [][]float32
	// With a front end: the rows' windows, the attention mask (nil
	// without one), how many samples of its window each row has heard,
	// and the front ends that turn windows into the audio input, one per
	// goroutine (rowFeatures).
	windows []float32
	mask    *ort.Tensor[int64]
	heard   []int
	fronts  []*frontEnd
}

func (m *onnxModel) newStepper(rows int) (stepper, error) {
	s := &onnxStepper{model: m}
	if err := s.allocate(rows); err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	return s, nil
}

// allocate makes the input tensors of a batch of rows rows, with a zero
// state.
func (s *onnxStepper) allocate(rows int) error {
	m := s.model
	s.rows, s.inputs, s.states = rows, nil, nil
	c := m.spec.channels()
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
			s.inputs = append(s.inputs, t)
		}
		return t, err
	}
	var err error
	if s.audio, err = tensor(m.spec.Audio.Shape); err != nil {
		return fmt.Errorf("audio: %w", err)
	}
	if got, want := len(s.audio.GetData()), rows*c*m.spec.channelValues(); got != want {
		s.close()
		return fmt.Errorf("audio shape %v holds %d values, the layout needs %d", m.spec.Audio.Shape, got, want)
	}
	if m.spec.FrontEnd != nil {
		s.windows, s.heard = make([]float32, rows*c*m.spec.Frame), make([]int, rows)
	}
	if m.spec.attentionMask() != "" {
		if s.mask, err = ort.NewEmptyTensor[int64](s.audio.GetShape()); err != nil {
			s.close()
			return fmt.Errorf("attention mask: %w", err)
		}
		s.inputs = append(s.inputs, s.mask)
	}
	for _, st := range m.spec.State {
		t, err := tensor(st.Shape)
		if err != nil {
			s.close()
			return fmt.Errorf("state %s: %w", st.Input, err)
		}
		s.states = append(s.states, t)
	}
	for _, k := range m.spec.Constants {
		v, err := newConstant(k, rows, c, m.spec.Frame)
		if err != nil {
			s.close()
			return fmt.Errorf("constant %s: %w", k.Name, err)
		}
		s.inputs = append(s.inputs, v)
	}
	s.scores = make([][]float32, len(m.spec.Scores))
	for t := range s.scores {
		s.scores[t] = make([]float32, rows)
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

func (s *onnxStepper) close() {
	for _, v := range s.inputs {
		v.Destroy()
	}
	s.inputs = nil
}

func (s *onnxStepper) window(r int) []float32 {
	n := s.model.spec.channels() * s.model.spec.Frame
	if s.windows != nil {
		return s.windows[r*n : (r+1)*n]
	}
	return s.audio.GetData()[r*n : (r+1)*n]
}

func (s *onnxStepper) value(t, r int) float32 { return s.scores[t][r] }

// step runs the model once for every row, keeps each row's scores and
// feeds the state outputs back as the next step's state.
func (s *onnxStepper) step() error {
	m := s.model
	if s.windows != nil {
		if err := s.rowFeatures(); err != nil {
			return err
		}
	}
	outputs := make([]ort.Value, len(m.scoreOutputs)+len(s.states))
	defer func() {
		for _, v := range outputs {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	if err := m.session.Run(s.inputs, outputs); err != nil {
		return err
	}
	for t, sc := range m.spec.Scores {
		if err := readScore(outputs[slices.Index(m.scoreOutputs, sc.Output)], sc, s.scores[t]); err != nil {
			return err
		}
	}
	for i, st := range s.states {
		o, ok := outputs[len(m.scoreOutputs)+i].(*ort.Tensor[float32])
		if !ok || len(o.GetData()) != len(st.GetData()) {
			return fmt.Errorf("state output %s does not match its input's type and size", m.spec.State[i].Output)
		}
		copy(st.GetData(), o.GetData())
	}
	return nil
}

// readScore sets each row's value of output out.
func readScore(out ort.Value, sc ScoreSpec, rows []float32) error {
	t, ok := out.(*ort.Tensor[float32])
	if !ok {
		return fmt.Errorf("output %s is not a float32 tensor", sc.Output)
	}
	data := t.GetData()
	if len(data)%len(rows) != 0 || sc.Index >= len(data)/len(rows) {
		return fmt.Errorf("output %s has shape %v: no index %d for each of %d rows", sc.Output, t.GetShape(), sc.Index, len(rows))
	}
	per := len(data) / len(rows)
	for k := range rows {
		v := float64(data[k*per+sc.Index])
		if sc.Sigmoid {
			v = 1 / (1 + math.Exp(-v))
		}
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("output %s gave %v for row %d, outside [0, 1] (set sigmoid: true for logits)", sc.Output, v, k)
		}
		rows[k] = float32(v)
	}
	return nil
}

// resize carries each kept row's state into a batch of len(keep) rows.
// Only batchable models' batches are resized.
func (s *onnxStepper) resize(keep []int) error {
	m, rows := s.model, s.rows
	var states [][]float32
	for _, st := range s.states {
		states = append(states, slices.Clone(st.GetData()))
	}
	heard := s.heard
	s.close()
	if err := s.allocate(len(keep)); err != nil {
		return err
	}
	for i, r := range keep {
		if r >= 0 && heard != nil {
			s.heard[i] = heard[r]
		}
	}
	for i, st := range m.spec.State {
		dims, err := resolveShape(st.Shape, rows, m.spec.channels(), m.spec.Frame)
		if err != nil {
			return err
		}
		blocksOf(dims, slices.Index(st.Shape, "batch")).copyRows(s.states[i].GetData(), states[i], rows, keep)
	}
	return nil
}
