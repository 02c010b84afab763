package detect

import (
	"encoding/binary"
	"fmt"
	"math"

	ort "github.com/yalue/onnxruntime_go"
)

// outputFloats is a score output's values as float32, with its shape: a
// float32 tensor as it is, a float16 one converted.
func outputFloats(v ort.Value) ([]float32, ort.Shape, error) {
	switch t := v.(type) {
	case *ort.Tensor[float32]:
		return t.GetData(), t.GetShape(), nil
	case *ort.CustomDataTensor:
		raw := t.GetData()
		out := make([]float32, len(raw)/2)
		for i := range out {
			out[i] = halfToFloat32(binary.LittleEndian.Uint16(raw[2*i:]))
		}
		return out, t.GetShape(), nil
	}
	return nil, nil, fmt.Errorf("not a float32 or float16 tensor")
}

// halfToFloat32 converts an IEEE 754 half-precision value exactly: every
// float16, subnormals, infinities and NaNs included, is a float32.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp, mant := uint32(h>>10)&0x1f, uint32(h)&0x3ff
	switch exp {
	case 0x1f: // infinity or NaN: the mantissa's bits carried over
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	case 0: // zero or subnormal: mant·2⁻²⁴, exact in float32
		return math.Float32frombits(sign | math.Float32bits(float32(mant)/(1<<24)))
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// sumSlack is how far past 1 a sum of probabilities may come by rounding
// and still read as 1.
const sumSlack = 1e-6

// readScore sets each row's values of score sc from its output's data
// (shape the output's): for rows rows, frames per step each (ScoreSpec).
func readScore(data []float32, shape ort.Shape, sc ScoreSpec, rows int, dst []float32) error {
	if len(data) == 0 || len(shape) == 0 || len(data)%rows != 0 {
		return fmt.Errorf("output %s has shape %v: not %d rows", sc.Output, shape, rows)
	}
	per, frames, size := len(data)/rows, max(sc.Frames, 1), len(data)/rows
	if sc.Frames > 0 {
		if len(shape) < 2 || shape[1] < int64(sc.Frames) || per%int(shape[1]) != 0 {
			return fmt.Errorf("output %s has shape %v: no %d frames on its second dimension", sc.Output, shape, sc.Frames)
		}
		size = per / int(shape[1])
	}
	last := int(shape[len(shape)-1])
	if sc.Softmax && (last < 1 || size%last != 0) {
		return fmt.Errorf("output %s has shape %v: a frame's %d values are not groups of its last dimension", sc.Output, shape, size)
	}
	scratch := make([]float64, size)
	for r := range rows {
		row := data[r*per : (r+1)*per]
		for f := range frames {
			v := row[len(row)-(frames-f)*size:][:size]
			p, err := sc.read(v, last, scratch)
			if err != nil {
				return fmt.Errorf("output %s row %d: %w", sc.Output, r, err)
			}
			dst[r*frames+f] = float32(p)
		}
	}
	return nil
}

// read derives the score from one frame's values v: softmax over groups
// of last values, the value at the index or the sum, sigmoid, complement.
func (sc ScoreSpec) read(v []float32, last int, p []float64) (float64, error) {
	for i, x := range v {
		p[i] = float64(x)
	}
	if sc.Softmax {
		for g := 0; g < len(p); g += last {
			softmax(p[g : g+last])
		}
	}
	at := func(i int) (float64, error) {
		if i < 0 {
			i += len(p)
		}
		if i < 0 || i >= len(p) {
			return 0, fmt.Errorf("no index %d among a frame's %d values", i, len(p))
		}
		return p[i], nil
	}
	var x float64
	if len(sc.Sum) == 0 {
		var err error
		if x, err = at(sc.Index); err != nil {
			return 0, err
		}
	}
	for _, i := range sc.Sum {
		y, err := at(i)
		if err != nil {
			return 0, err
		}
		x += y
	}
	if len(sc.Sum) > 0 && x > 1 && x <= 1+sumSlack {
		x = 1
	}
	if sc.Sigmoid {
		x = 1 / (1 + math.Exp(-x))
	}
	if sc.Complement {
		x = 1 - x
	}
	if !(x >= 0 && x <= 1) {
		return 0, fmt.Errorf("score %v, outside [0, 1] (set sigmoid or softmax for logits)", x)
	}
	return x, nil
}

// softmax normalises logits in place: exp(x − max) over their sum.
func softmax(x []float64) {
	top := math.Inf(-1)
	for _, v := range x {
		top = max(top, v)
	}
	var sum float64
	for i, v := range x {
		x[i] = math.Exp(v - top)
		sum += x[i]
	}
	for i := range x {
		x[i] /= sum
	}
}
