package detect

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/floorbench/floorbench/internal/digest"
)

// HasModelStage reports whether the system scores audio in two stages, a
// model and a floor mapping (every family but external).
func (s *System) HasModelStage() bool { return s.family.ModelStage != nil }

// stageValues are the system's values of the parameters of one stage.
func (s *System) stageValues(stage Stage) values {
	v := values{}
	for _, p := range s.family.Params {
		if p.Stage == stage {
			v[p.Name] = s.values[p.Name]
		}
	}
	return v
}

// openModel opens the system's model from its model-stage parameters
// alone, so that a parameter declared for the floor stage cannot change
// the model's output.
func (s *System) openModel(rt Runtime) (model, error) {
	return s.family.ModelStage.open(s, s.stageValues(StageModel), rt)
}

// modelNormalised is the content a model stage's hash covers: everything
// that changes the model's output, nothing that only changes how the
// floor stage reads it.
type modelNormalised struct {
	Stage   string            `json:"model_stage"`
	Version int               `json:"model_stage_version"`
	Params  map[string]any    `json:"params"`
	Files   map[string]string `json:"files_sha256,omitempty"`
	ONNX    *OnnxSpec         `json:"onnx,omitempty"`
}

// ModelHash identifies the system's model stage: the identity hash (digest.Identity) of the
// stage's name and version, the system's model-stage parameters, its
// model file's SHA-256 and its onnx section. Systems with the same model
// hash give the same model output on the same audio, whatever their floor
// parameters. It is "" for a system without a model stage.
func (s *System) ModelHash(rt Runtime) (string, error) {
	if !s.HasModelStage() {
		return "", nil
	}
	if err := s.checkRequired(); err != nil {
		return "", err
	}
	st := s.family.ModelStage
	n := modelNormalised{Stage: st.Name, Version: st.Version, Params: s.stageValues(StageModel), ONNX: s.onnx}
	if s.family.Model {
		sum, err := s.modelSum(rt)
		if err != nil {
			return "", err
		}
		n.Files = map[string]string{"model": sum}
	}
	data, err := json.Marshal(n)
	if err != nil {
		return "", err
	}
	return digest.Identity(data), nil
}

// Model is a system's model stage, opened: what all conversations share
// (an ONNX Runtime session). It is used by one goroutine at a time.
type Model struct {
	model model
	rows  int
}

// OpenModel opens the system's model stage on rt. The caller closes it.
func (s *System) OpenModel(rt Runtime) (*Model, error) {
	if !s.HasModelStage() {
		return nil, fmt.Errorf("family %s has no model stage: its scores are made elsewhere (files, an endpoint)", s.family.Name)
	}
	if err := s.checkRequired(); err != nil {
		return nil, err
	}
	m, err := s.openModel(rt)
	if err != nil {
		return nil, err
	}
	return &Model{model: m, rows: rt.batchRows()}, nil
}

// Run runs the model over a whole conversation.
func (m *Model) Run(ctx context.Context, c *Conversation) (*ModelOutput, error) {
	return runModel(ctx, m.model, c)
}

// Close releases the model's resources.
func (m *Model) Close() error { return m.model.close() }

// MapOutput is the system's floor stage: the model output of one
// conversation (made by a system with the same ModelHash) placed on the
// system's grid and scored by its floor mapping. MapOutput(Run(c)) is
// Detect(c), bit for bit.
func (s *System) MapOutput(out *ModelOutput) (*Scores, error) {
	if !s.HasModelStage() {
		return nil, fmt.Errorf("family %s has no model stage", s.family.Name)
	}
	if err := s.checkRequired(); err != nil {
		return nil, err
	}
	fps, mapping, err := s.floorStage()
	if err != nil {
		return nil, err
	}
	if err := out.check(); err != nil {
		return nil, fmt.Errorf("model output: %w", err)
	}
	if want := s.outputRoles(); !slices.Equal(out.Roles, want) {
		return nil, fmt.Errorf("model output has outputs %q; system %s reads %q", out.Roles, s.Name, want)
	}
	return mapOutput(out, mapping, fps), nil
}

// outputRoles are the roles of the system's model outputs.
func (s *System) outputRoles() []string {
	if s.onnx == nil {
		return activityOnly
	}
	roles := make([]string, len(s.onnx.Scores))
	for t, sc := range s.onnx.Scores {
		roles[t] = sc.Role
	}
	return roles
}
