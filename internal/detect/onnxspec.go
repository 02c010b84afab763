package detect

import (
	"errors"
	"fmt"
	"math"
	"slices"
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
// next step's state inputs. Frame and Hop count samples at SampleRate: a
// model at another rate than the conversations' 16 kHz reads each channel
// resampled (audio.Resampler).
//
// Shapes list dimensions as integers or the symbols "batch" (the number of
// rows: speakers), "channels" (1 per-speaker, 2 speaker-vs-rest) and "frame".
// The audio tensor is float32, laid out row by row, channel by channel:
// each channel's window of samples, or with a FrontEnd what the host
// computes from it (Whisper's log-mel features, normalised samples); or,
// with AudioChannels, each channel is an input of its own. A model that
// fixes its batch dimension at 1 runs its rows one at a time.
type OnnxSpec struct {
	SampleRate    int            `yaml:"sample_rate" json:"sample_rate"`
	Frame         int            `yaml:"frame" json:"frame"`
	Hop           int            `yaml:"hop" json:"hop"`
	ChannelLayout string         `yaml:"channel_layout" json:"channel_layout"`
	FrontEnd      *FrontEndSpec  `yaml:"front_end,omitempty" json:"front_end,omitempty"`
	Audio         TensorSpec     `yaml:"audio,omitempty" json:"audio"`
	AudioChannels []TensorSpec   `yaml:"audio_channels,omitempty" json:"audio_channels,omitempty"`
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
// and the output whose value becomes the next step's input. A Queue state
// is a rolling context (MaAI's e1_context): the input's values after the
// batch dimension are frames, oldest first, and the output is the newest
// frame, appended while the oldest is dropped.
type StateSpec struct {
	Input  string   `yaml:"input" json:"input"`
	Output string   `yaml:"output" json:"output"`
	Shape  []string `yaml:"shape" json:"shape"`
	Queue  bool     `yaml:"queue,omitempty" json:"queue,omitempty"`
}

// ConstantSpec is an input with the same value at every step, a scalar
// (empty shape) or a tensor filled with Value.
type ConstantSpec struct {
	Name  string   `yaml:"name" json:"name"`
	Type  string   `yaml:"type" json:"type"` // int64 or float32
	Shape []string `yaml:"shape,omitempty" json:"shape,omitempty"`
	Value float64  `yaml:"value" json:"value"`
}

// ScoreSpec maps values of a float32 or float16 output to a score. The
// output's values for row b start at b*n/batch. Without Frames a step
// gives one value per row; with Frames the output's second dimension is
// time, and the step gives the last Frames frames of it, Hop/Frames
// samples apart (VAP's 5 s of 50 Hz frames, Turn-1-Mini's 8 per step).
// Each frame's values are read in order: Softmax over the output's last
// dimension, then the value at Index, or the sum of those at Sum (a
// negative index counts from the end), then Sigmoid, then Complement
// (1 − p).
type ScoreSpec struct {
	Output     string `yaml:"output" json:"output"`
	Frames     int    `yaml:"frames,omitempty" json:"frames,omitempty"`
	Index      int    `yaml:"index,omitempty" json:"index"`
	Sum        []int  `yaml:"sum,omitempty" json:"sum,omitempty"`
	Softmax    bool   `yaml:"softmax,omitempty" json:"softmax,omitempty"`
	Sigmoid    bool   `yaml:"sigmoid,omitempty" json:"sigmoid"`
	Complement bool   `yaml:"complement,omitempty" json:"complement,omitempty"`
	Role       string `yaml:"role" json:"role"`
}

// Bounds of a model's sample rate: 8 to 48 kHz.
const (
	minModelRate = 8000
	maxModelRate = 48000
)

func (o *OnnxSpec) check() error {
	if o.SampleRate < minModelRate || o.SampleRate > maxModelRate {
		return fmt.Errorf("sample_rate %d: want %d to %d Hz (conversations are read at %d Hz and resampled to it)", o.SampleRate, minModelRate, maxModelRate, SampleRate)
	}
	if o.Hop < 1 || o.Frame < o.Hop || o.Frame > maxTensorElements {
		return fmt.Errorf("need 1 <= hop (%d) <= frame (%d) <= %d", o.Hop, o.Frame, maxTensorElements)
	}
	if o.ChannelLayout != LayoutPerSpeaker && o.ChannelLayout != LayoutSpeakerVsRest {
		return fmt.Errorf("channel_layout %q: want %s or %s", o.ChannelLayout, LayoutPerSpeaker, LayoutSpeakerVsRest)
	}
	names := map[string]string{}
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
	switch {
	case len(o.AudioChannels) > 0 && (o.Audio.Name != "" || o.Audio.Shape != nil):
		return errors.New("audio and audio_channels: give one of them")
	case len(o.AudioChannels) > 0 && o.FrontEnd != nil:
		return fmt.Errorf("front_end %s and audio_channels: a front end fills the one audio input (give audio, with channels in its shape for %s)", o.FrontEnd.Kind, LayoutSpeakerVsRest)
	case len(o.AudioChannels) > 0:
		if len(o.AudioChannels) != o.channels() {
			return fmt.Errorf("audio_channels: %d inputs, layout %s has %d channels", len(o.AudioChannels), o.ChannelLayout, o.channels())
		}
		for i, a := range o.AudioChannels {
			what := fmt.Sprintf("audio_channels[%d]", i)
			if err := claim(a.Name, what); err != nil {
				return err
			}
			if err := checkAudioShape(a.Shape, false); err != nil {
				return fmt.Errorf("%s.shape: %w", what, err)
			}
		}
	case o.Audio.Name == "":
		return errors.New("audio.name is empty")
	case o.FrontEnd != nil:
		if err := o.FrontEnd.check(o); err != nil {
			return err
		}
		names[o.Audio.Name] = "audio"
	default:
		if err := checkAudioShape(o.Audio.Shape, true); err != nil {
			return fmt.Errorf("audio.shape: %w", err)
		}
		names[o.Audio.Name] = "audio"
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
		if st.Queue && slices.Index(st.Shape, "batch") != 0 {
			return fmt.Errorf("%s.shape %v: a queue state's first dimension is batch", what, st.Shape)
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
	if err := o.checkScores(outputs); err != nil {
		return err
	}
	if _, err := o.valueHop(); err != nil {
		return err
	}
	return nil
}

// checkScores checks the scores, given the state outputs.
func (o *OnnxSpec) checkScores(stateOutputs map[string]bool) error {
	roles := map[string]bool{}
	for i, sc := range o.Scores {
		what := fmt.Sprintf("scores[%d]", i)
		switch {
		case sc.Output == "":
			return fmt.Errorf("%s: empty output name", what)
		case stateOutputs[sc.Output]:
			return fmt.Errorf("%s: output %q is a state output", what, sc.Output)
		case sc.Role != RoleActivity && sc.Role != RoleEOT && sc.Role != RoleINT:
			return fmt.Errorf("%s.role %q: want %s, %s or %s", what, sc.Role, RoleActivity, RoleEOT, RoleINT)
		case roles[sc.Role]:
			return fmt.Errorf("%s: role %s given twice", what, sc.Role)
		case sc.Frames < 0 || sc.Frames > o.Hop:
			return fmt.Errorf("%s.frames %d: want 0 (no time axis) to hop (%d)", what, sc.Frames, o.Hop)
		case sc.Frames != o.Scores[0].Frames:
			return fmt.Errorf("%s.frames %d: scores[0] reads %d frames a step; every score must read as many", what, sc.Frames, o.Scores[0].Frames)
		case sc.Index != 0 && len(sc.Sum) > 0:
			return fmt.Errorf("%s: index %d and sum %v: give one of them", what, sc.Index, sc.Sum)
		case sc.Softmax && sc.Sigmoid:
			return fmt.Errorf("%s: softmax and sigmoid: give one of them", what)
		}
		roles[sc.Role] = true
	}
	// An activity output scores both tasks; eot or int alone, one
	// (tasksOfRoles): the system is EOT-only or INT-only.
	if len(roles) == 0 {
		return errors.New("scores: no scoring output; give one with role activity (both tasks), eot or int")
	}
	return nil
}

// framesPerStep is how many values each step gives per score: the frames
// of a time axis, or 1.
func (o *OnnxSpec) framesPerStep() int { return max(o.Scores[0].Frames, 1) }

// valueHop is how many conversation samples (16 kHz) each value moves on:
// the hop, at the model's sample rate, over the frames a step gives. It
// must be a whole number of samples, and at most a second's, as model
// outputs are stored (maxModelHop).
func (o *OnnxSpec) valueHop() (int, error) {
	per, n := int64(o.framesPerStep())*int64(o.SampleRate), int64(o.Hop)*SampleRate
	switch {
	case n%per != 0:
		return 0, fmt.Errorf("hop %d at sample_rate %d over %d frames a step is not a whole number of %d Hz samples", o.Hop, o.SampleRate, o.framesPerStep(), SampleRate)
	case n/per > maxModelHop:
		return 0, fmt.Errorf("hop %d at sample_rate %d over %d frames a step gives a value every %d samples; at most %d (a second; read more frames a step)", o.Hop, o.SampleRate, o.framesPerStep(), n/per, maxModelHop)
	}
	return int(n / per), nil
}

func (o *OnnxSpec) channels() int {
	if o.ChannelLayout == LayoutSpeakerVsRest {
		return 2
	}
	return 1
}

// checkAudioShape requires the symbols batch, (channels,) frame in this
// order, with only 1s besides them, so that the audio's row-major layout is
// the one the spec documents. An input of one channel has no channels
// dimension.
func checkAudioShape(shape []string, channels bool) error {
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
	s := fmt.Sprint(order)
	if !channels && s != "[batch frame]" {
		return fmt.Errorf("%v: need batch, then frame", shape)
	}
	if s != "[batch frame]" && s != "[batch channels frame]" {
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

// audioInputs are the audio tensors: audio, or one per channel.
func (o *OnnxSpec) audioInputs() []TensorSpec {
	if len(o.AudioChannels) > 0 {
		return o.AudioChannels
	}
	return []TensorSpec{o.Audio}
}

// audioField is the spec field of audio input i.
func (o *OnnxSpec) audioField(i int) string {
	if len(o.AudioChannels) > 0 {
		return fmt.Sprintf("audio_channels[%d]", i)
	}
	return "audio"
}
