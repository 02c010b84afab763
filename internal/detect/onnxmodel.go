package detect

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	ort "github.com/yalue/onnxruntime_go"
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
	for _, sc := range spec.Scores {
		if !slices.Contains(m.scoreOutputs, sc.Output) {
			m.scoreOutputs = append(m.scoreOutputs, sc.Output)
		}
	}
	inputs := []string{spec.Audio.Name}
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
			errs = append(errs, fmt.Errorf("the model's input %q is not in the spec (as audio, state or constant)", in.Name))
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

// onnxBatch holds one conversation's input tensors.
type onnxBatch struct {
	audio  *ort.Tensor[float32]
	states []*ort.Tensor[float32]
	inputs []ort.Value
}

func (m *onnxModel) newBatch(rows int) (*onnxBatch, error) {
	b := &onnxBatch{}
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
			b.inputs = append(b.inputs, t)
		}
		return t, err
	}
	var err error
	if b.audio, err = tensor(m.spec.Audio.Shape); err != nil {
		return nil, fmt.Errorf("audio: %w", err)
	}
	if got, want := len(b.audio.GetData()), rows*c*m.spec.Frame; got != want {
		b.destroy()
		return nil, fmt.Errorf("audio shape %v holds %d samples, the layout needs %d", m.spec.Audio.Shape, got, want)
	}
	for _, st := range m.spec.State {
		t, err := tensor(st.Shape)
		if err != nil {
			b.destroy()
			return nil, fmt.Errorf("state %s: %w", st.Input, err)
		}
		b.states = append(b.states, t)
	}
	for _, k := range m.spec.Constants {
		v, err := newConstant(k, rows, c, m.spec.Frame)
		if err != nil {
			b.destroy()
			return nil, fmt.Errorf("constant %s: %w", k.Name, err)
		}
		b.inputs = append(b.inputs, v)
	}
	return b, nil
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

func (b *onnxBatch) destroy() {
	for _, v := range b.inputs {
		v.Destroy()
	}
}

func (m *onnxModel) start(rows int) (modelRun, error) {
	if m.spec.ChannelLayout == LayoutSpeakerVsRest && rows < 2 {
		return nil, fmt.Errorf("layout %s needs at least 2 speakers, got %d", LayoutSpeakerVsRest, rows)
	}
	b, err := m.newBatch(rows)
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	return &onnxRun{model: m, batch: b, framers: framers(rows*m.spec.channels(), m.spec.Frame, m.spec.Hop)}, nil
}

// onnxRun is a conversation part way through: the windows of every row's
// channels (row k's channel c at k·channels + c), and in the batch the
// recurrent state of step steps.
type onnxRun struct {
	model   *onnxModel
	batch   *onnxBatch
	framers []*framer
	steps   int
}

func (r *onnxRun) push(channels [][]float32, out [][][]float32) error {
	perRow := r.model.spec.channels()
	for k, ch := range channels {
		r.framers[k*perRow].add(ch)
		if perRow == 2 {
			r.framers[k*perRow+1].add(rest(channels, k))
		}
	}
	for r.ready() {
		if err := r.step(out); err != nil {
			return fmt.Errorf("onnx: step %d: %w", r.steps, err)
		}
		r.steps++
	}
	return nil
}

// ready reports whether every row has its next window: channels hear the
// same number of samples, so the first speaks for all.
func (r *onnxRun) ready() bool {
	_, ok := r.framers[0].window()
	return ok
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

// step runs the model once for every row and appends its scores to out.
func (r *onnxRun) step(out [][][]float32) error {
	m, b := r.model, r.batch
	audio, frame := b.audio.GetData(), m.spec.Frame
	for i, f := range r.framers {
		w, _ := f.window()
		copy(audio[i*frame:(i+1)*frame], w)
		f.advance()
	}
	outputs := make([]ort.Value, len(m.scoreOutputs)+len(b.states))
	defer func() {
		for _, v := range outputs {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	if err := m.session.Run(b.inputs, outputs); err != nil {
		return err
	}
	for t, sc := range m.spec.Scores {
		if err := readScore(outputs[slices.Index(m.scoreOutputs, sc.Output)], sc, out[t]); err != nil {
			return err
		}
	}
	for i, st := range b.states {
		o, ok := outputs[len(m.scoreOutputs)+i].(*ort.Tensor[float32])
		if !ok || len(o.GetData()) != len(st.GetData()) {
			return fmt.Errorf("state output %s does not match its input's type and size", m.spec.State[i].Output)
		}
		copy(st.GetData(), o.GetData())
	}
	return nil
}

// readScore appends each row's value of output out to its track.
func readScore(out ort.Value, sc ScoreSpec, tracks [][]float32) error {
	t, ok := out.(*ort.Tensor[float32])
	if !ok {
		return fmt.Errorf("output %s is not a float32 tensor", sc.Output)
	}
	data, rows := t.GetData(), len(tracks)
	if len(data)%rows != 0 || sc.Index >= len(data)/rows {
		return fmt.Errorf("output %s has shape %v: no index %d for each of %d rows", sc.Output, t.GetShape(), sc.Index, rows)
	}
	per := len(data) / rows
	for k := range tracks {
		v := float64(data[k*per+sc.Index])
		if sc.Sigmoid {
			v = 1 / (1 + math.Exp(-v))
		}
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("output %s gave %v for row %d, outside [0, 1] (set sigmoid: true for logits)", sc.Output, v, k)
		}
		tracks[k] = append(tracks[k], float32(v))
	}
	return nil
}

func (r *onnxRun) close() error {
	r.batch.destroy()
	return nil
}
