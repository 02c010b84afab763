package detect

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	ort "github.com/yalue/onnxruntime_go"
)

// modelTensors is what matching the spec to the model's declared tensors
// tells about running it.
type modelTensors struct {
	// oneRow: the model fixes its batch dimension at 1, so each row runs
	// in a session call of its own.
	oneRow bool
	// half are the float16 score outputs' declared dimensions (the first
	// is the batch): their tensors are made before each run.
	half map[string]ort.Shape
}

// matchModel checks the spec against the model's inputs and outputs
// before any audio is read: every tensor the spec names exists with the
// right element type and fixed sizes, and every model input is given.
// Each mismatch names the spec's field, the model's tensor and its shape;
// all of them make one line.
func (o *OnnxSpec) matchModel(ins, outs []ort.InputOutputInfo) (modelTensors, error) {
	mt := modelTensors{half: map[string]ort.Shape{}}
	m := tensorMatch{spec: o, ins: ins, outs: outs, given: map[string]bool{}}
	for i, a := range o.audioInputs() {
		field := o.audioField(i)
		info, ok := m.input(field, a.Name, a.Shape, ort.TensorElementDataTypeFloat)
		if !ok {
			continue
		}
		if info.Dimensions[slices.Index(a.Shape, "batch")] == 1 {
			mt.oneRow = true
		}
	}
	if mask := o.attentionMask(); mask != "" {
		// The mask has the audio input's shape: a value for each sample.
		if info, ok := m.inputShaped("front_end.attention_mask", "front_end.attention_mask (audio.shape)", mask, o.Audio.Shape, ort.TensorElementDataTypeInt64); ok &&
			info.Dimensions[slices.Index(o.Audio.Shape, "batch")] == 1 {
			mt.oneRow = true
		}
	}
	for i, st := range o.State {
		field := fmt.Sprintf("state[%d]", i)
		m.input(field+".input", st.Input, st.Shape, ort.TensorElementDataTypeFloat)
		if info, ok := m.output(field+".output", st.Output); ok {
			m.stateOutput(field, st, info)
		}
	}
	for i, c := range o.Constants {
		var dtype ort.TensorElementDataType = ort.TensorElementDataTypeFloat
		if c.Type == "int64" {
			dtype = ort.TensorElementDataTypeInt64
		}
		m.input(fmt.Sprintf("constants[%d]", i), c.Name, c.Shape, dtype)
	}
	for i, sc := range o.Scores {
		field := fmt.Sprintf("scores[%d]", i)
		if info, ok := m.output(field+".output", sc.Output); ok && m.scoreOutput(field, sc, info) {
			mt.half[sc.Output] = info.Dimensions
		}
	}
	for _, in := range ins {
		if !m.given[in.Name] {
			m.fail("the model's input %s is not in the spec (as audio, attention mask, state or constant)", describe(in))
		}
	}
	if len(m.errs) > 0 {
		return mt, errors.New(strings.Join(m.errs, "; "))
	}
	return mt, nil
}

// tensorMatch collects the mismatches between a spec and a model.
type tensorMatch struct {
	spec      *OnnxSpec
	ins, outs []ort.InputOutputInfo
	given     map[string]bool
	errs      []string
}

func (m *tensorMatch) fail(format string, args ...any) {
	m.errs = append(m.errs, fmt.Sprintf(format, args...))
}

func find(list []ort.InputOutputInfo, name string) (ort.InputOutputInfo, bool) {
	i := slices.IndexFunc(list, func(x ort.InputOutputInfo) bool { return x.Name == name })
	if i < 0 {
		return ort.InputOutputInfo{}, false
	}
	return list[i], true
}

// describe spells a model tensor as errors show it: name, element type and
// dimensions, ? where the model leaves one free.
func describe(x ort.InputOutputInfo) string {
	dims := make([]string, len(x.Dimensions))
	for i, d := range x.Dimensions {
		dims[i] = fmt.Sprint(d)
		if d < 1 {
			dims[i] = "?"
		}
	}
	return fmt.Sprintf("%s %s [%s]", x.Name, typeName(x.DataType), strings.Join(dims, " "))
}

func describeAll(list []ort.InputOutputInfo) string {
	s := make([]string, len(list))
	for i, x := range list {
		s[i] = describe(x)
	}
	return strings.Join(s, ", ")
}

// input checks the input a spec field names: it exists, has the element
// type dtype and the fixed sizes of shape.
func (m *tensorMatch) input(field, name string, shape []string, dtype ort.TensorElementDataType) (ort.InputOutputInfo, bool) {
	return m.inputShaped(field, field+".shape", name, shape, dtype)
}

// inputShaped is input where the shape is another field's (shapeField).
func (m *tensorMatch) inputShaped(field, shapeField, name string, shape []string, dtype ort.TensorElementDataType) (ort.InputOutputInfo, bool) {
	info, ok := find(m.ins, name)
	if !ok {
		m.fail("%s %q: the model has no such input; its inputs are %s", field, name, describeAll(m.ins))
		return info, false
	}
	m.given[name] = true
	if info.DataType != dtype {
		m.fail("%s %q: the model's input is %s, the spec gives %s", field, name, describe(info), typeName(dtype))
		return info, false
	}
	if len(info.Dimensions) != len(shape) {
		m.fail("%s %v: the model's input is %s, %d dimensions", shapeField, shape, describe(info), len(info.Dimensions))
		return info, false
	}
	dims, err := resolveShape(shape, 1, m.spec.channels(), m.spec.Frame)
	if err != nil {
		m.fail("%s: %v", shapeField, err)
		return info, false
	}
	for i, d := range info.Dimensions {
		batch := shape[i] == "batch"
		if d < 1 || (batch && d == 1) || (!batch && d == dims[i]) {
			continue
		}
		if batch {
			m.fail("%s %v: dimension %d is the batch, the model's input is %s: a fixed batch must be 1", shapeField, shape, i, describe(info))
			return info, false
		}
		given := shape[i]
		if _, err := strconv.Atoi(given); err != nil {
			given = fmt.Sprintf("%s = %d", shape[i], dims[i])
		}
		m.fail("%s %v: dimension %d: the spec gives %s, the model's input is %s", shapeField, shape, i, given, describe(info))
		return info, false
	}
	return info, true
}

// output finds the output a spec field names.
func (m *tensorMatch) output(field, name string) (ort.InputOutputInfo, bool) {
	info, ok := find(m.outs, name)
	if !ok {
		m.fail("%s %q: the model has no such output; its outputs are %s", field, name, describeAll(m.outs))
	}
	return info, ok
}

// stateOutput checks a state's output against its input's shape: the same
// size, or for a queue a whole number of frames that fit in it.
func (m *tensorMatch) stateOutput(field string, st StateSpec, info ort.InputOutputInfo) {
	if info.DataType != ort.TensorElementDataTypeFloat {
		m.fail("%s.output %q: the model's output is %s; states are float32", field, st.Output, describe(info))
		return
	}
	dims, err := resolveShape(st.Shape, 1, m.spec.channels(), m.spec.Frame)
	if err != nil {
		return
	}
	if len(info.Dimensions) != len(dims) {
		m.fail("%s.output %q: the model's output is %s; the state's shape %v has %d dimensions", field, st.Output, describe(info), st.Shape, len(dims))
		return
	}
	at := slices.Index(st.Shape, "batch")
	in, ok := perRow(dims, at)
	out, known := perRow(info.Dimensions, at)
	if !ok || !known {
		return
	}
	switch {
	case !st.Queue && out != in:
		m.fail("%s.output %q: the model's output is %s, %d values a row; the state's shape %v holds %d", field, st.Output, describe(info), out, st.Shape, in)
	case st.Queue && (out > in || in%out != 0):
		m.fail("%s.output %q: the model's output is %s, %d values a row, not a whole number of frames of the queue's shape %v (%d)", field, st.Output, describe(info), out, st.Shape, in)
	}
}

// perRow is how many values a row has in a tensor of dimensions dims
// whose batch dimension is at (-1: none), if the model fixes them all.
func perRow(dims []int64, at int) (int, bool) {
	n := 1
	for i, d := range dims {
		if i == at {
			continue
		}
		if d < 1 {
			return 0, false
		}
		n *= int(d)
	}
	return n, true
}

// scoreOutput checks a score's output: float32 or float16 (whose sizes
// past the batch the model must fix), a time axis for frames, and its
// indices inside a frame's values. It reports whether the output is
// float16.
func (m *tensorMatch) scoreOutput(field string, sc ScoreSpec, info ort.InputOutputInfo) bool {
	dims := info.Dimensions
	half := info.DataType == ort.TensorElementDataTypeFloat16
	switch {
	case info.DataType != ort.TensorElementDataTypeFloat && !half:
		m.fail("%s.output %q: the model's output is %s; scores read float32 or float16", field, sc.Output, describe(info))
		return false
	case len(dims) == 0:
		m.fail("%s.output %q: the model's output is %s, a scalar; scores read a batch dimension first", field, sc.Output, describe(info))
		return false
	case sc.Frames > 0 && len(dims) < 2:
		m.fail("%s.frames %d: the model's output is %s, without a time axis (its second dimension)", field, sc.Frames, describe(info))
		return false
	case sc.Frames > 0 && dims[1] > 0 && dims[1] < int64(sc.Frames):
		m.fail("%s.frames %d: the model's output is %s, %d frames a step", field, sc.Frames, describe(info), dims[1])
		return false
	case sc.Softmax && len(dims) < 2:
		m.fail("%s.softmax: the model's output is %s, with no dimension past the batch to normalise", field, describe(info))
		return false
	}
	if _, known := perRow(dims, 0); half && !known {
		m.fail("%s.output %q: the model's output is %s; a float16 output needs every dimension but the first fixed", field, sc.Output, describe(info))
		return false
	}
	skip := 1
	if sc.Frames > 0 {
		skip = 2
	}
	per, known := perRow(dims[skip:], -1)
	if !known {
		return half
	}
	for _, i := range slices.Concat([]int{sc.Index}, sc.Sum) {
		if i < -per || i >= per {
			m.fail("%s: index %d outside the %d values of a frame of the model's output %s", field, i, per, describe(info))
			return false
		}
	}
	return half
}

// typeName spells an element type as specs do.
func typeName(t ort.TensorElementDataType) string {
	switch t {
	case ort.TensorElementDataTypeFloat:
		return "float32"
	case ort.TensorElementDataTypeFloat16:
		return "float16"
	case ort.TensorElementDataTypeInt64:
		return "int64"
	}
	return t.String()
}
