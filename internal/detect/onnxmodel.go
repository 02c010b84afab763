package detect

import (
	"context"
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

// onnxDetector runs a model described by an OnnxSpec (the onnx family).
type onnxDetector struct {
	spec    *OnnxSpec
	session *ort.DynamicAdvancedSession
	// scoreOutputs are the distinct outputs the scores read, in spec order;
	// the session's outputs are scoreOutputs then the state outputs.
	scoreOutputs []string
	mapping      FloorMapping
	fps          float64
}

func openONNX(s *System, rt Runtime) (Detector, error) {
	fps, err := s.values.frameRate()
	if err != nil {
		return nil, err
	}
	mapping, err := s.family.mapping(s.values)
	if err != nil {
		return nil, err
	}
	model, err := s.modelFile(rt)
	if err != nil {
		return nil, err
	}
	if err := rt.initONNXRuntime(); err != nil {
		return nil, err
	}
	ins, outs, err := ort.GetInputOutputInfo(model)
	if err != nil {
		return nil, fmt.Errorf("onnx: read model %s: %w", model, err)
	}
	spec := s.onnx
	if err := spec.matchModel(ins, outs); err != nil {
		return nil, fmt.Errorf("onnx: spec does not match model %s: %w", model, err)
	}
	d := &onnxDetector{spec: spec, mapping: mapping, fps: fps}
	for _, sc := range spec.Scores {
		if !slices.Contains(d.scoreOutputs, sc.Output) {
			d.scoreOutputs = append(d.scoreOutputs, sc.Output)
		}
	}
	inputs := []string{spec.Audio.Name}
	outputs := slices.Clone(d.scoreOutputs)
	for _, st := range spec.State {
		inputs, outputs = append(inputs, st.Input), append(outputs, st.Output)
	}
	for _, c := range spec.Constants {
		inputs = append(inputs, c.Name)
	}
	if d.session, err = rt.newSession(model, inputs, outputs); err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	return d, nil
}

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

func (d *onnxDetector) newBatch(rows int) (*onnxBatch, error) {
	b := &onnxBatch{}
	c := d.spec.channels()
	tensor := func(shape []string) (*ort.Tensor[float32], error) {
		dims, err := resolveShape(shape, rows, c, d.spec.Frame)
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
	if b.audio, err = tensor(d.spec.Audio.Shape); err != nil {
		return nil, fmt.Errorf("audio: %w", err)
	}
	if got, want := len(b.audio.GetData()), rows*c*d.spec.Frame; got != want {
		b.destroy()
		return nil, fmt.Errorf("audio shape %v holds %d samples, the layout needs %d", d.spec.Audio.Shape, got, want)
	}
	for _, st := range d.spec.State {
		t, err := tensor(st.Shape)
		if err != nil {
			b.destroy()
			return nil, fmt.Errorf("state %s: %w", st.Input, err)
		}
		b.states = append(b.states, t)
	}
	for _, k := range d.spec.Constants {
		v, err := newConstant(k, rows, c, d.spec.Frame)
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

func (d *onnxDetector) Detect(ctx context.Context, c *Conversation) (*Scores, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	rows := len(c.Channels)
	if d.spec.ChannelLayout == LayoutSpeakerVsRest && rows < 2 {
		return nil, fmt.Errorf("conversation %q: layout %s needs at least 2 speakers, got %d", c.ID, LayoutSpeakerVsRest, rows)
	}
	views := d.rowChannels(c.timeline())
	b, err := d.newBatch(rows)
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	defer b.destroy()
	tracks := map[string]*activity{}
	for _, sc := range d.spec.Scores {
		tracks[sc.Role] = newActivity(rows, d.spec.Hop, d.spec.Hop)
	}
	n := steps(c.heardSamples(), d.spec.Hop, d.spec.Hop)
	for _, t := range tracks {
		for k := range t.values {
			t.values[k] = make([]float32, n)
		}
	}
	for j := 0; j < n; j++ {
		if j%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if err := d.step(b, views, j, tracks); err != nil {
			return nil, fmt.Errorf("onnx: conversation %q step %d: %w", c.ID, j, err)
		}
	}
	return d.scores(tracks, frameCount(c.Duration, d.fps)), nil
}

// rowChannels returns, per row, the channels the layout feeds it.
func (d *onnxDetector) rowChannels(timeline [][]float32) [][][]float32 {
	views := make([][][]float32, len(timeline))
	for k, ch := range timeline {
		views[k] = [][]float32{ch}
	}
	if d.spec.ChannelLayout == LayoutSpeakerVsRest {
		for k := range timeline {
			views[k] = append(views[k], rest(timeline, k))
		}
	}
	return views
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

// step runs the model once for every row and records its scores.
func (d *onnxDetector) step(b *onnxBatch, views [][][]float32, j int, tracks map[string]*activity) error {
	frame, audio := d.spec.Frame, b.audio.GetData()
	for k, chans := range views {
		for ci, ch := range chans {
			off := (k*len(chans) + ci) * frame
			fillWindow(audio[off:off+frame], ch, (j+1)*d.spec.Hop)
		}
	}
	outputs := make([]ort.Value, len(d.scoreOutputs)+len(b.states))
	defer func() {
		for _, v := range outputs {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	if err := d.session.Run(b.inputs, outputs); err != nil {
		return err
	}
	for _, sc := range d.spec.Scores {
		out := outputs[slices.Index(d.scoreOutputs, sc.Output)]
		if err := readScore(out, sc, tracks[sc.Role], j); err != nil {
			return err
		}
	}
	for i, st := range b.states {
		out, ok := outputs[len(d.scoreOutputs)+i].(*ort.Tensor[float32])
		if !ok || len(out.GetData()) != len(st.GetData()) {
			return fmt.Errorf("state output %s does not match its input's type and size", d.spec.State[i].Output)
		}
		copy(st.GetData(), out.GetData())
	}
	return nil
}

// readScore stores each row's value of output out as step j of track.
func readScore(out ort.Value, sc ScoreSpec, track *activity, j int) error {
	t, ok := out.(*ort.Tensor[float32])
	if !ok {
		return fmt.Errorf("output %s is not a float32 tensor", sc.Output)
	}
	data, rows := t.GetData(), len(track.values)
	if len(data)%rows != 0 || sc.Index >= len(data)/rows {
		return fmt.Errorf("output %s has shape %v: no index %d for each of %d rows", sc.Output, t.GetShape(), sc.Index, rows)
	}
	per := len(data) / rows
	for k := range track.values {
		v := float64(data[k*per+sc.Index])
		if sc.Sigmoid {
			v = 1 / (1 + math.Exp(-v))
		}
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("output %s gave %v for row %d, outside [0, 1] (set sigmoid: true for logits)", sc.Output, v, k)
		}
		track.values[k][j] = float32(v)
	}
	return nil
}

// scores places the model's tracks on the grid: direct eot and int outputs
// as they are, the rest derived from activity by the floor mapping.
func (d *onnxDetector) scores(tracks map[string]*activity, frames int) *Scores {
	s := &Scores{FrameRate: d.fps}
	if act, ok := tracks[RoleActivity]; ok {
		s.EOT, s.INT = d.mapping.Apply(act.onGrid(frames, d.fps), d.fps)
	}
	if t, ok := tracks[RoleEOT]; ok {
		s.EOT = t.onGrid(frames, d.fps)
	}
	if t, ok := tracks[RoleINT]; ok {
		s.INT = t.onGrid(frames, d.fps)
	}
	return s
}

func (d *onnxDetector) Close() error { return d.session.Destroy() }
