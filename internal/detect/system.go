package detect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/redact"
)

// ModelRef names a model file and, optionally, the SHA-256 it must have.
type ModelRef struct {
	Path   string `yaml:"path,omitempty"`
	SHA256 string `yaml:"sha256,omitempty"`
}

// specFile is a system spec as written in YAML.
type specFile struct {
	Name   string         `yaml:"name,omitempty"`
	Family string         `yaml:"family"`
	Params map[string]any `yaml:"params,omitempty"`
	Model  *ModelRef      `yaml:"model,omitempty"`
	ONNX   *OnnxSpec      `yaml:"onnx,omitempty"`
	// Tasks claims the tasks the system scores (System.Tasks); absent, they
	// follow from the family, the onnx score roles or the external files.
	Tasks []string `yaml:"tasks,omitempty"`
}

// System is a detector family with every parameter set: what a spec file or
// a built-in name describes. Open makes a Detector of it.
type System struct {
	// Name labels the system in reports; it is not part of its identity.
	Name   string
	family Family
	values values
	model  ModelRef
	onnx   *OnnxSpec
	// tasks are the tasks the spec claims (nil: not claimed); see Tasks.
	tasks []floor.Task
	// dir is the spec's folder; relative paths in the spec start there.
	dir string
}

// Builtin returns the built-in system of a family with default parameters.
func Builtin(family string) (*System, error) {
	f, err := FamilyByName(family)
	if err != nil {
		return nil, err
	}
	s := &System{Name: family, family: f, values: values{}}
	for _, p := range f.Params {
		if p.Default != nil {
			s.values[p.Name] = p.Default
		}
	}
	return s, nil
}

// LoadSystem reads a system spec file of at most lim's spec limit.
func LoadSystem(path string, lim limits.Limits) (*System, error) {
	data, err := lim.ReadSpec(path)
	if err != nil {
		return nil, fmt.Errorf("system spec: %w", err)
	}
	s, err := ParseSystem(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("system spec %s: %w", path, err)
	}
	return s, nil
}

// ParseSystem parses a system spec; dir is the folder relative paths in it
// start from. Unknown keys, unknown parameters and values of the wrong kind
// are errors.
func ParseSystem(data []byte, dir string) (*System, error) {
	var spec specFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&spec); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty spec")
		}
		return nil, redact.YAML(err)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("a spec is one YAML document")
	}
	if spec.Family == "" {
		return nil, errors.New(`missing "family"`)
	}
	s, err := Builtin(spec.Family)
	if err != nil {
		return nil, err
	}
	s.dir = dir
	if spec.Name != "" {
		s.Name = spec.Name
	}
	names := make([]string, 0, len(spec.Params))
	for k := range spec.Params {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if err := s.setParam(k, spec.Params[k]); err != nil {
			return nil, err
		}
	}
	if spec.Model != nil {
		if !s.family.Model {
			return nil, fmt.Errorf("family %s takes no model", s.family.Name)
		}
		s.model = *spec.Model
	}
	if s.model.SHA256 != "" && !digest.IsSHA256(s.model.SHA256) {
		return nil, errors.New("model.sha256: want 64 lowercase hex digits")
	}
	switch {
	case spec.ONNX != nil && s.family.Name != "onnx":
		return nil, fmt.Errorf("family %s takes no onnx section", s.family.Name)
	case spec.ONNX == nil && s.family.Name == "onnx":
		return nil, errors.New("family onnx needs an onnx section describing the model")
	case spec.ONNX != nil:
		if err := spec.ONNX.check(); err != nil {
			return nil, fmt.Errorf("onnx: %w", err)
		}
		if s.model.Path == "" {
			return nil, errors.New("family onnx needs model.path")
		}
		s.onnx = spec.ONNX
	}
	if spec.Tasks != nil {
		if s.tasks, err = parseTasks(spec.Tasks); err != nil {
			return nil, err
		}
	}
	if err := s.checkDeclaredTasks(); err != nil {
		return nil, err
	}
	return s, nil
}

// SpecYAML writes the system as a spec file with every parameter given;
// ParseSystem reads it back as the same system.
func (s *System) SpecYAML() ([]byte, error) {
	spec := specFile{Name: s.Name, Family: s.family.Name, Params: s.Params(), ONNX: s.onnx}
	for _, t := range s.tasks {
		spec.Tasks = append(spec.Tasks, string(t))
	}
	if s.model != (ModelRef{}) {
		m := s.model
		spec.Model = &m
	}
	return yaml.Marshal(spec)
}

// SetParam sets a parameter from its text form (as --param k=v gives it).
func (s *System) SetParam(name, value string) error { return s.setParam(name, value) }

func (s *System) setParam(name string, value any) error {
	p, ok := s.family.param(name)
	if !ok {
		return fmt.Errorf("family %s has no parameter %s (see floorbench systems)", s.family.Name, redact.Name(name))
	}
	v, err := p.parse(value)
	if err != nil {
		return err
	}
	s.values[name] = v
	return nil
}

// Family returns the system's family name.
func (s *System) Family() string { return s.family.Name }

// Params returns the system's parameter values, defaults filled in.
func (s *System) Params() map[string]any {
	out := make(map[string]any, len(s.values))
	for k, v := range s.values {
		out[k] = v
	}
	return out
}

func (s *System) checkRequired() error {
	for _, p := range s.family.Params {
		if _, ok := s.values[p.Name]; !ok {
			return fmt.Errorf("family %s needs parameter %s (%s)", s.family.Name, p.Name, p.Doc)
		}
	}
	if s.family.Name == "onnx" && s.onnx == nil {
		return errors.New("family onnx needs a spec file with an onnx section (--system-spec)")
	}
	if s.family.check != nil {
		return s.family.check(s.values)
	}
	return nil
}

// resolve turns a path from the spec into a file path: ${FLOORBENCH_TOOLS}
// is the tools folder, ${FLOORBENCH_MODELS} the user's models folder (left
// as it is where none is set, so that an error shows it), and relative
// paths start at the spec's folder.
func (s *System) resolve(path string, rt Runtime) string {
	path = os.Expand(path, func(v string) string {
		switch {
		case v == "FLOORBENCH_TOOLS":
			return rt.Tools
		case v == "FLOORBENCH_MODELS" && rt.Models != "":
			return rt.Models
		}
		return "${" + v + "}"
	})
	if !filepath.IsAbs(path) && s.dir != "" {
		path = filepath.Join(s.dir, path)
	}
	return path
}

// modelRef is the model the system runs: the spec's, or for the Silero
// families the one the setup installs, with its pinned hash.
func (s *System) modelRef(rt Runtime) ModelRef {
	m := s.model
	if s.family.silero && m.Path == "" {
		m.Path = filepath.Join(rt.Tools, SileroModelPath)
		if m.SHA256 == "" {
			m.SHA256 = SileroModelSHA256
		}
		return m
	}
	m.Path = s.resolve(m.Path, rt)
	return m
}

// modelFile checks the model file by the rule every file a user names
// follows (limits.Open: a regular file of at most limits.model_bytes) and,
// when the spec pins one, its hash, and returns its path.
func (s *System) modelFile(rt Runtime) (string, error) {
	m := s.modelRef(rt)
	if m.SHA256 == "" {
		if _, err := s.modelSHA256(m.Path, rt.Limits); err != nil {
			return "", err
		}
		return m.Path, nil
	}
	got, err := s.modelSHA256(m.Path, rt.Limits)
	if err != nil {
		return "", err
	}
	if got != m.SHA256 {
		return "", fmt.Errorf("%s: model %s has sha256 %s, the spec pins %s", s.family.Name, m.Path, got, m.SHA256)
	}
	return m.Path, nil
}

// modelSHA256 opens the model at path (limits.Open's rule, at most lim's
// model_bytes) and hashes it.
func (s *System) modelSHA256(path string, lim limits.Limits) (string, error) {
	f, err := lim.OrDefault().OpenModel(path)
	if errors.Is(err, fs.ErrNotExist) {
		hint := "check model.path in the spec"
		if s.model.Path == "" {
			hint = setupHint
		}
		return "", fmt.Errorf("%s: model %s not found (%s)", s.family.Name, path, hint)
	}
	if err != nil {
		return "", fmt.Errorf("%s: model %w", s.family.Name, err)
	}
	defer f.Close()
	return digest.SHA256(f, path)
}

// Open makes a Detector of the system on runtime rt. The caller closes it.
func (s *System) Open(rt Runtime) (Detector, error) {
	if err := s.checkRequired(); err != nil {
		return nil, err
	}
	if s.family.ModelStage == nil {
		return s.family.open(s, rt)
	}
	d, err := s.openAudio(rt)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// normalised is the content a system's hash covers: everything that changes
// its scores, nothing that only says where files are.
type normalised struct {
	Family  string            `json:"family"`
	Version int               `json:"family_version"`
	Params  map[string]any    `json:"params"`
	Files   map[string]string `json:"files_sha256,omitempty"`
	ONNX    *OnnxSpec         `json:"onnx,omitempty"`
}

// Normalised returns the system's normalised spec as canonical JSON: keys
// sorted, every parameter with its default filled in, and the SHA-256 of the
// model and input files in place of their paths.
func (s *System) Normalised(rt Runtime) ([]byte, error) {
	if err := s.checkRequired(); err != nil {
		return nil, err
	}
	n := normalised{Family: s.family.Name, Version: s.family.Version, Params: map[string]any{}, Files: map[string]string{}, ONNX: s.onnx}
	for _, p := range s.family.Params {
		if p.Kind != KindPath && !p.Run {
			n.Params[p.Name] = s.values[p.Name]
		}
	}
	if s.family.Model {
		sum, err := s.modelSum(rt)
		if err != nil {
			return nil, err
		}
		n.Files["model"] = sum
	}
	if s.family.Name == "external" {
		// An external system's tasks are its files: only those it reads
		// are hashed, so an EOT-only system differs from a both-task one
		// by what it computes and nothing else.
		names, err := s.externalFiles(rt)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			sum, err := inputSHA256(filepath.Join(s.resolve(s.values["dir"].(string), rt), name), rt.Limits)
			if err != nil {
				return nil, fmt.Errorf("hash external input: %w", err)
			}
			n.Files[name] = sum
		}
	}
	return json.Marshal(n)
}

// modelSum is the SHA-256 of the system's model file: the one its spec
// pins, else the file's own.
func (s *System) modelSum(rt Runtime) (string, error) {
	m := s.modelRef(rt)
	if m.SHA256 != "" {
		return m.SHA256, nil
	}
	return s.modelSHA256(m.Path, rt.Limits)
}

// Hash identifies the system: the identity hash (digest.Identity) of its
// normalised spec.
func (s *System) Hash(rt Runtime) (string, error) {
	data, err := s.Normalised(rt)
	if err != nil {
		return "", err
	}
	return digest.Identity(data), nil
}

// inputSHA256 opens a probability file (limits.Open's rule, at most lim's
// input_bytes) and hashes it.
func inputSHA256(path string, lim limits.Limits) (string, error) {
	f, err := lim.OrDefault().OpenInputFile(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return digest.SHA256(f, path)
}

// LocalFiles are the files of the submitting machine a system reads, by
// role: "model" for a model the spec names, and for the external family
// each of ProbsFileNames of a task it scores (all of them where its tasks
// cannot be told, so that the upload names the missing one). A sweep
// uploads them, so a worker needs none of the submitter's paths (UseFile
// puts its copies in their place). The Silero model the setup installs is
// every worker's own and is not listed.
func (s *System) LocalFiles(rt Runtime) map[string]string {
	out := map[string]string{}
	if s.family.Model && s.model.Path != "" {
		out["model"] = s.resolve(s.model.Path, rt)
	}
	if s.family.Name == "external" {
		dir := s.resolve(s.values["dir"].(string), rt)
		names, err := s.externalFiles(rt)
		if err != nil {
			names = ProbsFileNames
		}
		for _, name := range names {
			out[name] = filepath.Join(dir, name)
		}
	}
	return out
}

// UseFile makes the system read the file of a role (see LocalFiles) from
// path, a worker's copy of what the submitter uploaded. The system's hash
// does not change: it covers files by content, not by path.
func (s *System) UseFile(role, path string) error {
	switch {
	case role == "model" && s.family.Model:
		s.model.Path = path
	case slices.Contains(ProbsFileNames, role) && s.family.Name == "external":
		s.values["dir"] = filepath.Dir(path)
	default:
		return fmt.Errorf("family %s reads no file %q", s.family.Name, role)
	}
	return nil
}
