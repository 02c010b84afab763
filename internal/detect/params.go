package detect

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/floorbench/floorbench/internal/redact"
)

// ParamKind is the type of a system parameter's value.
type ParamKind string

// The parameter kinds. A path names a file or folder; it is resolved against
// the spec's folder and the system's hash covers the content it names, never
// the path itself.
const (
	KindFloat ParamKind = "float"
	KindInt   ParamKind = "int"
	KindBool  ParamKind = "bool"
	KindPath  ParamKind = "path"
	// KindString is one of the parameter's Choices.
	KindString ParamKind = "string"
	// KindText is free text (a URL, a model's name), checked by the
	// family.
	KindText ParamKind = "text"
)

// Param documents one parameter of a family. A nil Default means required.
type Param struct {
	Name    string    `json:"name"`
	Kind    ParamKind `json:"kind"`
	Default any       `json:"default"`
	Doc     string    `json:"doc"`
	// Choices are a string parameter's allowed values.
	Choices []string `json:"choices,omitempty"`
	// Stage is the stage of a family that scores audio which reads the
	// parameter: StageModel or StageFloor ("" for families without stages).
	Stage Stage `json:"stage,omitempty"`
	// Run marks a parameter that says how the system runs, not what it
	// computes (where a credential is found): it is left out of the
	// system's hash.
	Run bool `json:"run,omitempty"`
}

// Stage is one of the two stages of a detector that scores audio
// (package documentation, "Stages").
type Stage string

// The stages. A parameter of the model stage changes the model's output
// and so its identity (System.ModelHash); one of the floor stage changes
// only how that output becomes scores.
const (
	StageModel Stage = "model"
	StageFloor Stage = "floor"
)

// inStage marks parameters as read by a stage: each family's parameter
// lists are declared once, with their stage.
func inStage(stage Stage, ps []Param) []Param {
	out := slices.Clone(ps)
	for i := range out {
		out[i].Stage = stage
	}
	return out
}

// parse reads a parameter value as YAML decodes it (int, float64, bool,
// string) or as --param gives it (string), and checks its kind.
func (p Param) parse(v any) (any, error) {
	if s, ok := v.(string); ok && p.Kind != KindPath && p.Kind != KindString && p.Kind != KindText {
		return p.parseString(s)
	}
	switch p.Kind {
	case KindFloat:
		switch x := v.(type) {
		case int:
			return float64(x), nil
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("parameter %s: must be finite, got %v", p.Name, x)
			}
			return x, nil
		}
	case KindInt:
		if x, ok := v.(int); ok {
			return x, nil
		}
	case KindBool:
		if x, ok := v.(bool); ok {
			return x, nil
		}
	case KindPath:
		if x, ok := v.(string); ok && x != "" {
			return x, nil
		}
	case KindText:
		if x, ok := v.(string); ok {
			return x, nil
		}
	case KindString:
		if x, ok := v.(string); ok && slices.Contains(p.Choices, x) {
			return x, nil
		}
		return nil, fmt.Errorf("parameter %s: want one of %v, got %s", p.Name, p.Choices, given(v))
	}
	return nil, fmt.Errorf("parameter %s: want a %s, got %s", p.Name, p.Kind, given(v))
}

// given is a parameter's value as an error may quote it: a number or a
// boolean, a string of the form of a name (redact.Name), else its kind.
func given(v any) string {
	switch x := v.(type) {
	case string:
		return redact.Name(x)
	case int, float64, bool:
		return fmt.Sprint(x)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return "nothing"
}

func (p Param) parseString(s string) (any, error) {
	switch p.Kind {
	case KindFloat:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("parameter %s: want a finite number, got %s", p.Name, redact.Name(s))
		}
		return x, nil
	case KindInt:
		x, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: want an integer, got %s", p.Name, redact.Name(s))
		}
		return x, nil
	case KindBool:
		x, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: want true or false, got %s", p.Name, redact.Name(s))
		}
		return x, nil
	}
	return nil, fmt.Errorf("parameter %s: unsupported kind %s", p.Name, p.Kind)
}

// gridParams are the output grid's parameters, shared by every family that
// computes scores from audio.
var gridParams = inStage(StageFloor, []Param{
	{Name: "frame_rate_hz", Kind: KindFloat, Default: 100.0, Doc: "frame rate of the score tracks"},
})

// Floor mapping parameters (package documentation, "From voice activity to
// floor scores"). A family lists only those its mapping reads.
var (
	hysteresisParams = inStage(StageFloor, []Param{
		{Name: "speech_threshold", Kind: KindFloat, Default: 0.5, Doc: "activity at or above which a speaker starts speaking"},
		{Name: "silence_threshold", Kind: KindFloat, Default: 0.35, Doc: "activity below which a speaker stops speaking"},
	})
	timeoutParams = inStage(StageFloor, []Param{
		{Name: "eot_min_speech_s", Kind: KindFloat, Default: 0.1, Doc: "shortest speech run whose end can be an end of turn"},
		{Name: "eot_ramp_s", Kind: KindFloat, Default: 2.0, Doc: "silence after own speech at which the EOT score reaches 1"},
		{Name: "int_ramp_s", Kind: KindFloat, Default: 5.0, Doc: "length of an overlapping speech run at which the INT score reaches 1 (past the 3 s scoring window, so that a sweep can pick any run length)"},
	})
	gateParams = slices.Concat(hysteresisParams, intGateParams(
		"INT scores only while another speaker speaks",
		"how long after another speaker's speech the INT gate stays open"))
	endpointerParams = slices.Concat(hysteresisParams, timeoutParams, intGateParams(
		"INT scores only for runs that begin while another speaker speaks",
		"how long before an onset another speaker's speech still opens the INT gate"))
	// ruleParams are the onnx family's: the rule is a parameter, and the
	// silence timeouts apply under the endpointer rule only.
	ruleParams = slices.Concat(
		inStage(StageFloor, []Param{{Name: "floor_rule", Kind: KindString, Default: RuleGate, Choices: []string{RuleGate, RuleEndpointer},
			Doc: "how voice activity becomes scores: gate (instantaneous) or endpointer (silence timeouts)"}}),
		hysteresisParams,
		intGateParams(
			"INT scores only while another speaker speaks (gate) or for runs that begin while one speaks (endpointer)",
			"how long another speaker's speech keeps the INT gate open"),
		endpointerOnly(timeoutParams))
)

// intGateParams are the INT gate's parameters, documented for a rule.
func intGateParams(gateDoc, lookbackDoc string) []Param {
	return inStage(StageFloor, []Param{
		{Name: "int_gate", Kind: KindBool, Default: true, Doc: gateDoc},
		{Name: "int_gate_lookback_s", Kind: KindFloat, Default: 0.5, Doc: lookbackDoc},
	})
}

// endpointerOnly marks parameters that only the endpointer rule reads.
func endpointerOnly(ps []Param) []Param {
	out := slices.Clone(ps)
	for i := range out {
		out[i].Doc = "endpointer rule: " + out[i].Doc
	}
	return out
}

// values is a system's parameters after defaults are filled in.
type values map[string]any

func (v values) float(name string) float64 { return v[name].(float64) }
func (v values) int(name string) int       { return v[name].(int) }
func (v values) bool(name string) bool     { return v[name].(bool) }
func (v values) string(name string) string { return v[name].(string) }

func (v values) hysteresis() Hysteresis {
	return Hysteresis{SpeechThreshold: v.float("speech_threshold"), SilenceThreshold: v.float("silence_threshold")}
}

// gate is a gate family's floor mapping.
func gate(v values) (FloorMapping, error) {
	g := Gate{
		Hysteresis:      v.hysteresis(),
		INTGate:         v.bool("int_gate"),
		INTGateLookback: v.float("int_gate_lookback_s"),
	}
	return g, g.check()
}

// endpointer is an endpointer family's floor mapping.
func endpointer(v values) (FloorMapping, error) {
	e := Endpointer{
		Hysteresis:      v.hysteresis(),
		EOTMinSpeech:    v.float("eot_min_speech_s"),
		EOTRamp:         v.float("eot_ramp_s"),
		INTRamp:         v.float("int_ramp_s"),
		INTGate:         v.bool("int_gate"),
		INTGateLookback: v.float("int_gate_lookback_s"),
	}
	return e, e.check()
}

// ruleMapping is the onnx family's floor mapping: the one floor_rule names.
func ruleMapping(v values) (FloorMapping, error) {
	if v.string("floor_rule") == RuleEndpointer {
		return endpointer(v)
	}
	return gate(v)
}

func (v values) frameRate() (float64, error) {
	fps := v.float("frame_rate_hz")
	if !(fps > 0 && fps <= SampleRate) {
		return 0, fmt.Errorf("frame_rate_hz must be in (0, %d], got %v", SampleRate, fps)
	}
	return fps, nil
}
