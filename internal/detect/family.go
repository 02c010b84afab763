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
	open  func(s *System, rt Runtime) (Detector, error)
}

// Families lists the built-in families, in the order `floorbench systems`
// prints them.
func Families() []Family {
	return []Family{
		{Name: "rms", Doc: "energy voice activity against an adaptive noise floor, with hangover",
			Params: slices.Concat(gridParams, rmsParams, mappingParams), open: openRMS},
		{Name: "webrtcvad", Doc: "the WebRTC voice activity detector (modes 0-3)",
			Params: slices.Concat(gridParams, webrtcParams, mappingParams), open: openWebRTC},
		{Name: "silero", Doc: "Silero VAD v5 on ONNX Runtime, channels batched per step",
			Params: slices.Concat(gridParams, mappingParams), Model: true, open: openSilero},
		{Name: "onnx", Doc: "any ONNX model described by the spec's onnx section",
			Params: slices.Concat(gridParams, mappingParams), Model: true, open: openONNX},
		{Name: "external", Doc: "probs-eot.json and probs-int.json made elsewhere",
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

func openRMS(s *System, _ Runtime) (Detector, error) {
	vad, err := newRMSActivity(s.values)
	if err != nil {
		return nil, err
	}
	return newAcousticDetector(vad, s.values)
}

func openWebRTC(s *System, _ Runtime) (Detector, error) {
	vad, err := newWebRTCActivity(s.values)
	if err != nil {
		return nil, err
	}
	return newAcousticDetector(vad, s.values)
}

func openSilero(s *System, rt Runtime) (Detector, error) {
	model, err := s.modelFile(rt)
	if err != nil {
		return nil, err
	}
	vad, err := newSileroActivity(rt, model)
	if err != nil {
		return nil, err
	}
	d, err := newAcousticDetector(vad, s.values)
	if err != nil {
		vad.close()
		return nil, err
	}
	return d, nil
}
