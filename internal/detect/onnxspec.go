package detect

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Channel layouts of an onnx system: what one batch row of the model sees.
const (
	// LayoutPerSpeaker: one row per speaker, that speaker's channel alone.
	LayoutPerSpeaker = "per-speaker"
	// LayoutSpeakerVsRest: one row per speaker, two channels: the speaker's
	// own, then the sum of every other speaker's (clipped to [-1, 1]), the
	// input of dyadic models such as VAP.
	LayoutSpeakerVsRest = "speaker-vs-rest"
)

// Roles of a model output (package documentation).
const (
	RoleActivity = "activity"
	RoleEOT      = "eot"
	RoleINT      = "int"
)

// OnnxSpec describes how to run an ONNX model as a detector. Each step the
// model reads the last Frame samples of every row (zeros before the start),
// then Hop new samples arrive; recurrent state outputs are fed back as the
// next step's state inputs.
//
// Shapes list dimensions as integers or the symbols "batch" (the number of
// rows: speakers), "channels" (1 per-speaker, 2 speaker-vs-rest) and "frame".
// The audio tensor is float32, laid out row by row, channel by channel:
// each channel's window of samples, or with a FrontEnd what the host
// computes from it (Whisper's log-mel features, normalised samples).
type OnnxSpec struct {
	SampleRate    int            `yaml:"sample_rate" json:"sample_rate"`
	Frame         int            `yaml:"frame" json:"frame"`
	Hop           int            `yaml:"hop" json:"hop"`
	ChannelLayout string         `yaml:"channel_layout" json:"channel_layout"`
	FrontEnd      *FrontEndSpec  `yaml:"front_end,omitempty" json:"front_end,omitempty"`
	Audio         TensorSpec     `yaml:"audio" json:"audio"`
	State         []StateSpec    `yaml:"state,omitempty" json:"state,omitempty"`
	Constants     []ConstantSpec `yaml:"constants,omitempty" json:"constants,omitempty"`
	Scores        []ScoreSpec    `yaml:"scores" json:"scores"`
}

// TensorSpec names an input tensor and gives its shape.
type TensorSpec struct {
	Name  string   `yaml:"name" json:"name"`
	Shape []string `yaml:"shape" json:"shape"`
}

// StateSpec is a recurrent state: a float32 input, zero at the first step,
// and the output whose value becomes the next step's input.
type StateSpec struct {
	Input  string   `yaml:"input" json:"input"`
	Output string   `yaml:"output" json:"output"`
	Shape  []string `yaml:"shape" json:"shape"`
}

// ConstantSpec is an input with the same value at every step, a scalar
// (empty shape) or a tensor filled with Value.
type ConstantSpec struct {
	Name  string   `yaml:"name" json:"name"`
	Type  string   `yaml:"type" json:"type"` // int64 or float32
	Shape []string `yaml:"shape,omitempty" json:"shape,omitempty"`
	Value float64  `yaml:"value" json:"value"`
}

// ScoreSpec maps one value of an output to a score: the output's values for
// row b start at b*n/batch; Index picks one of them.
type ScoreSpec struct {
	Output  string `yaml:"output" json:"output"`
	Index   int    `yaml:"index,omitempty" json:"index"`
	Role    string `yaml:"role" json:"role"`
	Sigmoid bool   `yaml:"sigmoid,omitempty" json:"sigmoid"`
}

func (o *OnnxSpec) check() error {
	if o.SampleRate != SampleRate {
		return fmt.Errorf("sample_rate %d: only %d Hz models are supported (conversations are read at %d Hz)", o.SampleRate, SampleRate, SampleRate)
	}
	if o.Hop < 1 || o.Frame < o.Hop {
		return fmt.Errorf("need 1 <= hop (%d) <= frame (%d)", o.Hop, o.Frame)
	}
	if o.ChannelLayout != LayoutPerSpeaker && o.ChannelLayout != LayoutSpeakerVsRest {
		return fmt.Errorf("channel_layout %q: want %s or %s", o.ChannelLayout, LayoutPerSpeaker, LayoutSpeakerVsRest)
	}
	if o.Audio.Name == "" {
		return errors.New("audio.name is empty")
	}
	if o.FrontEnd != nil {
		if err := o.FrontEnd.check(o); err != nil {
			return err
		}
	} else if err := checkAudioShape(o.Audio.Shape); err != nil {
		return fmt.Errorf("audio.shape: %w", err)
	}
	names := map[string]string{o.Audio.Name: "audio"}
	claim := func(name, what string) error {
		if name == "" {
			return fmt.Errorf("%s: empty tensor name", what)
		}
		if prev, ok := names[name]; ok {
			return fmt.Errorf("%s: input %q is already %s", what, name, prev)
		}
		names[name] = what
		return nil
	}
	if o.FrontEnd != nil && o.FrontEnd.AttentionMask != "" {
		if err := claim(o.FrontEnd.AttentionMask, "front_end.attention_mask"); err != nil {
			return err
		}
	}
	outputs := map[string]bool{}
	for i := range o.State {
		// A missing shape is a scalar; spelling it [] keeps the normalised
		// spec, and so the system's hash, the same either way.
		if o.State[i].Shape == nil {
			o.State[i].Shape = []string{}
		}
	}
	for i, st := range o.State {
		what := fmt.Sprintf("state[%d]", i)
		if err := claim(st.Input, what); err != nil {
			return err
		}
		if st.Output == "" || outputs[st.Output] {
			return fmt.Errorf("%s: output %q is empty or used twice", what, st.Output)
		}
		outputs[st.Output] = true
		if _, err := resolveShape(st.Shape, 1, 1, 1); err != nil {
			return fmt.Errorf("%s.shape: %w", what, err)
		}
	}
	for i, c := range o.Constants {
		what := fmt.Sprintf("constants[%d]", i)
		if err := claim(c.Name, what); err != nil {
			return err
		}
		if c.Type != "int64" && c.Type != "float32" {
			return fmt.Errorf("%s.type %q: want int64 or float32", what, c.Type)
		}
		if c.Type == "int64" && (c.Value != math.Trunc(c.Value) || math.Abs(c.Value) > 1<<53) {
			return fmt.Errorf("%s.value %v: not an int64", what, c.Value)
		}
		if math.IsNaN(c.Value) || math.IsInf(c.Value, 0) {
			return fmt.Errorf("%s.value: must be finite", what)
		}
		if _, err := resolveShape(c.Shape, 1, 1, 1); err != nil {
			return fmt.Errorf("%s.shape: %w", what, err)
		}
	}
	roles := map[string]bool{}
	for i, sc := range o.Scores {
		what := fmt.Sprintf("scores[%d]", i)
		if sc.Output == "" {
			return fmt.Errorf("%s: empty output name", what)
		}
		if outputs[sc.Output] {
			return fmt.Errorf("%s: output %q is a state output", what, sc.Output)
		}
		if sc.Role != RoleActivity && sc.Role != RoleEOT && sc.Role != RoleINT {
			return fmt.Errorf("%s.role %q: want %s, %s or %s", what, sc.Role, RoleActivity, RoleEOT, RoleINT)
		}
		if roles[sc.Role] {
			return fmt.Errorf("%s: role %s given twice", what, sc.Role)
		}
		roles[sc.Role] = true
		if sc.Index < 0 {
			return fmt.Errorf("%s.index must be >= 0", what)
		}
	}
	// An activity output scores both tasks; eot or int alone, one
	// (tasksOfRoles): the system is EOT-only or INT-only.
	if len(roles) == 0 {
		return errors.New("scores: no scoring output; give one with role activity (both tasks), eot or int")
	}
	return nil
}

func (o *OnnxSpec) channels() int {
	if o.ChannelLayout == LayoutSpeakerVsRest {
		return 2
	}
	return 1
}

// checkAudioShape requires the symbols batch, (channels,) frame in this
// order, with only 1s besides them, so that the audio's row-major layout is
// the one the spec documents.
func checkAudioShape(shape []string) error {
	var order []string
	for _, d := range shape {
		switch d {
		case "batch", "channels", "frame":
			order = append(order, d)
		case "1":
		default:
			return fmt.Errorf("dimension %q: want batch, channels, frame or 1", d)
		}
	}
	if s := fmt.Sprint(order); s != "[batch frame]" && s != "[batch channels frame]" {
		return fmt.Errorf("%v: need batch, then optionally channels, then frame", shape)
	}
	return nil
}

// resolveShape turns a symbolic shape into dimensions.
func resolveShape(shape []string, batch, channels, frame int) ([]int64, error) {
	dims := make([]int64, len(shape))
	for i, d := range shape {
		switch d {
		case "batch":
			dims[i] = int64(batch)
		case "channels":
			dims[i] = int64(channels)
		case "frame":
			dims[i] = int64(frame)
		default:
			n, err := strconv.Atoi(d)
			if err != nil || n < 1 || n > 1<<20 {
				return nil, fmt.Errorf("dimension %q: want a positive integer or batch, channels, frame", d)
			}
			dims[i] = int64(n)
		}
	}
	return dims, nil
}
