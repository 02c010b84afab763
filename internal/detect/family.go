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
	// floor mappings belongs to every family that uses it).
	Version int `json:"version"`
	// openModel opens the model of a family that scores audio; open
	// opens a detector of the others (external).
	openModel func(s *System, rt Runtime) (model, error)
	open      func(s *System, rt Runtime) (Detector, error)
	// mapping makes the floor mapping of families that score voice
	// activity.
	mapping func(v values) (FloorMapping, error)
	// silero says the model is Silero VAD, installed by the setup.
	silero bool
}

// Families lists the built-in families, in the order `floorbench systems`
// prints them. Each voice activity detector comes twice: as a gate, the
// acoustic baseline both papers ran, and as a silence-timeout endpointer
// (package documentation, "From voice activity to floor scores").
func Families() []Family {
	return []Family{
		{Name: "rms", Version: 1, Doc: "energy voice activity against an adaptive noise floor, with hangover, as an instantaneous gate",
			Params: slices.Concat(gridParams, rmsParams, gateParams), openModel: openRMSModel, mapping: gate},
		{Name: "rms-endpointer", Version: 1, Doc: "the rms voice activity as a silence-timeout endpointer",
			Params: slices.Concat(gridParams, rmsParams, endpointerParams), openModel: openRMSModel, mapping: endpointer},
		{Name: "webrtcvad", Version: 1, Doc: "the WebRTC voice activity detector (modes 0-3) as an instantaneous gate",
			Params: slices.Concat(gridParams, webrtcParams, gateParams), openModel: openWebRTCModel, mapping: gate},
		{Name: "webrtcvad-endpointer", Version: 1, Doc: "the WebRTC voice activity detector as a silence-timeout endpointer",
			Params: slices.Concat(gridParams, webrtcParams, endpointerParams), openModel: openWebRTCModel, mapping: endpointer},
		{Name: "silero", Version: 1, Doc: "Silero VAD v5 on ONNX Runtime, channels batched per step, as an instantaneous gate",
			Params: slices.Concat(gridParams, gateParams), Model: true, openModel: openSileroModel, mapping: gate, silero: true},
		{Name: "silero-endpointer", Version: 1, Doc: "Silero VAD v5 as a silence-timeout endpointer",
			Params: slices.Concat(gridParams, endpointerParams), Model: true, openModel: openSileroModel, mapping: endpointer, silero: true},
		{Name: "onnx", Version: 1, Doc: "any ONNX model described by the spec's onnx section",
			Params: slices.Concat(gridParams, ruleParams), Model: true, openModel: openONNXModel, mapping: ruleMapping},
		{Name: "external", Version: 1, Doc: "probs-eot.json and probs-int.json made elsewhere",
			Params: externalParams, open: openExternal},
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

func openRMSModel(s *System, _ Runtime) (model, error) {
	m, err := newRMSModel(s.values)
	if err != nil {
		return nil, err
	}
	return m, nil
}

func openWebRTCModel(s *System, _ Runtime) (model, error) {
	m, err := newWebRTCModel(s.values)
	if err != nil {
		return nil, err
	}
	return m, nil
}

func openSileroModel(s *System, rt Runtime) (model, error) {
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
