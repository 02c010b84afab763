package detect

import (
	"fmt"
	"slices"
)

// Family is a kind of detector with its documented parameters.
type Family struct {
	Name   string  `json:"name"`
	Doc    string  `json:"doc"`
	Params []Param `json:"params"`
	// Model says whether the family runs an ONNX model file.
	Model bool `json:"model"`
	// Version is the family's code version. It is part of every system's
	// hash, so tracks inferred by older code are never reused: bump it with
	// any change that changes the family's scores (shared code such as the
	// floor mappings belongs to every family that uses it; a change to a
	// model stage bumps the stage's version and the version of every
	// family that runs it).
	Version int `json:"version"`
	// ModelStage is the model a family that scores audio runs (nil for
	// external).
	ModelStage *ModelStage `json:"model_stage,omitempty"`
	// open opens a detector of a family without a model stage.
	open func(s *System, rt Runtime) (Detector, error)
	// mapping makes the floor mapping of families that score voice
	// activity.
	mapping func(v values) (FloorMapping, error)
	// silero says the model is Silero VAD, installed by the setup.
	silero bool
	// check reports parameter values the family cannot work with, beyond
	// their kinds (nil: none).
	check func(v values) error
}

// ModelStage is the first stage of a family that scores audio (package
// documentation, "Stages"), shared by the families that run the same model
// (rms and rms-endpointer run one). A system's model stage is identified
// (System.ModelHash) by the stage's name and version, the family's
// parameters of StageModel, the model file and an onnx section: systems
// that differ only in floor parameters share one model output.
type ModelStage struct {
	Name string `json:"name"`
	// Version is the stage's code version, part of its identity: bump it
	// with any change to its output.
	Version int `json:"version"`
	// open opens the model with the system's values of StageModel only.
	open func(s *System, v values, rt Runtime) (model, error)
}

// The model stages of the built-in families.
var (
	rmsStage    = &ModelStage{Name: "rms", Version: 1, open: openRMSModel}
	webrtcStage = &ModelStage{Name: "webrtcvad", Version: 1, open: openWebRTCModel}
	sileroStage = &ModelStage{Name: "silero-vad-v5", Version: 1, open: openSileroModel}
	onnxStage   = &ModelStage{Name: "onnx", Version: 1, open: openONNXModel}
)

// Families lists the built-in families, in the order `floorbench systems`
// prints them. Each voice activity detector comes twice: as a gate, the
// acoustic baseline both papers ran, and as a silence-timeout endpointer
// (package documentation, "From voice activity to floor scores").
func Families() []Family {
	return []Family{
		{Name: "rms", Version: 1, Doc: "energy voice activity against an adaptive noise floor, with hangover, as an instantaneous gate",
			Params: slices.Concat(gridParams, rmsParams, gateParams), ModelStage: rmsStage, mapping: gate},
		{Name: "rms-endpointer", Version: 1, Doc: "the rms voice activity as a silence-timeout endpointer",
			Params: slices.Concat(gridParams, rmsParams, endpointerParams), ModelStage: rmsStage, mapping: endpointer},
		{Name: "webrtcvad", Version: 1, Doc: "the WebRTC voice activity detector (modes 0-3) as an instantaneous gate",
			Params: slices.Concat(gridParams, webrtcParams, gateParams), ModelStage: webrtcStage, mapping: gate},
		{Name: "webrtcvad-endpointer", Version: 1, Doc: "the WebRTC voice activity detector as a silence-timeout endpointer",
			Params: slices.Concat(gridParams, webrtcParams, endpointerParams), ModelStage: webrtcStage, mapping: endpointer},
		{Name: "silero", Version: 1, Doc: "Silero VAD v5 on ONNX Runtime, channels batched per step, as an instantaneous gate",
			Params: slices.Concat(gridParams, gateParams), Model: true, ModelStage: sileroStage, mapping: gate, silero: true},
		{Name: "silero-endpointer", Version: 1, Doc: "Silero VAD v5 as a silence-timeout endpointer",
			Params: slices.Concat(gridParams, endpointerParams), Model: true, ModelStage: sileroStage, mapping: endpointer, silero: true},
		{Name: "onnx", Version: 1, Doc: "any ONNX model described by the spec's onnx section",
			Params: slices.Concat(gridParams, ruleParams), Model: true, ModelStage: onnxStage, mapping: ruleMapping},
		{Name: "external", Version: 1, Doc: "probs-eot.json and probs-int.json made elsewhere",
			Params: externalParams, open: openExternal},
		{Name: RealtimeVADFamily, Version: 1, Doc: "an OpenAI-Realtime-compatible endpoint's own turn detection (server_vad or semantic_vad), its speech events as EOT and INT",
			Params: realtimeVADParams, open: openRealtimeVAD, check: checkRealtimeVAD},
	}
}

// FamilyByName finds a built-in family.
func FamilyByName(name string) (Family, error) {
	fams := Families()
	i := slices.IndexFunc(fams, func(f Family) bool { return f.Name == name })
	if i < 0 {
		names := make([]string, len(fams))
		for j, f := range fams {
			names[j] = f.Name
		}
		return Family{}, fmt.Errorf("unknown system family %q (built-ins: %v)", name, names)
	}
	return fams[i], nil
}

func (f Family) param(name string) (Param, bool) {
	i := slices.IndexFunc(f.Params, func(p Param) bool { return p.Name == name })
	if i < 0 {
		return Param{}, false
	}
	return f.Params[i], true
}

func openRMSModel(_ *System, v values, _ Runtime) (model, error) {
	m, err := newRMSModel(v)
	if err != nil {
		return nil, err
	}
	return m, nil
}

func openWebRTCModel(_ *System, v values, _ Runtime) (model, error) {
	m, err := newWebRTCModel(v)
	if err != nil {
		return nil, err
	}
	return m, nil
}

func openSileroModel(s *System, _ values, rt Runtime) (model, error) {
	path, err := s.modelFile(rt)
	if err != nil {
		return nil, err
	}
	m, err := newSileroModel(rt, path)
	if err != nil {
		return nil, err
	}
	return m, nil
}
