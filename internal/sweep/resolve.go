package sweep

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/version"
)

// Resolve turns a parsed spec into the sweep workflow's input: systems are
// checked and hashed (unknown families and bad parameters fail here, before
// anything is submitted), local corpora are opened and replaced in the
// run's identity by the hash of their manifest.
func Resolve(s *spec.Sweep, rt detect.Runtime) (Input, error) {
	in := Input{CodeVersion: version.Code()} // recorded in the bundle
	for i := range s.Corpora {
		c := &s.Corpora[i]
		src := CorpusSource{Name: c.Name, Generate: c.Generate}
		switch {
		case c.Path != "":
			dir, err := filepath.Abs(c.Path)
			if err != nil {
				return in, err
			}
			_, raw, err := corpus.ReadManifestRaw(dir, rt.Limits.OrDefault())
			if err != nil {
				return in, fmt.Errorf("corpora[%d] (%s): %w", i, c.Name, err)
			}
			c.Hash = digest.Identity(raw)
			src.Dir, src.Hash = dir, c.Hash
		case c.S3 != "":
			src.Prefix = c.S3
		}
		in.Corpora = append(in.Corpora, src)
	}
	for i := range s.Systems {
		ref, err := resolveSystem(&s.Systems[i], rt)
		if err != nil {
			return in, fmt.Errorf("systems[%d] (%s): %w", i, s.Systems[i].Name, err)
		}
		in.Systems = append(in.Systems, ref)
	}
	s.Normalise()
	hash, err := s.Hash()
	if err != nil {
		return in, err
	}
	in.Spec, in.SpecHash = *s, hash
	return in, nil
}

func resolveSystem(s *spec.System, rt detect.Runtime) (SystemRef, error) {
	var sys *detect.System
	ref := SystemRef{Name: s.Name}
	if s.Builtin != "" {
		var err error
		if sys, err = detect.Builtin(s.Builtin); err != nil {
			return ref, err
		}
		keys := make([]string, 0, len(s.Params))
		for k := range s.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := sys.SetParam(k, s.Params[k]); err != nil {
				return ref, err
			}
		}
		if ref.YAML, err = sys.SpecYAML(); err != nil {
			return ref, err
		}
	} else {
		path, err := filepath.Abs(s.Spec)
		if err != nil {
			return ref, err
		}
		if sys, err = detect.LoadSystem(path, rt.Limits.OrDefault()); err != nil {
			return ref, err
		}
		if ref.YAML, err = rt.Limits.OrDefault().ReadSpec(path); err != nil {
			return ref, err
		}
		ref.Dir = filepath.Dir(path)
		s.SpecYAML = string(ref.YAML)
	}
	sys.Name = s.Name
	hash, err := sys.Hash(rt)
	if err != nil {
		return ref, err
	}
	family, err := detect.FamilyByName(sys.Family())
	if err != nil {
		return ref, err
	}
	if ref.ModelHash, err = sys.ModelHash(rt); err != nil {
		return ref, err
	}
	ref.Hash, ref.NeedsModel = hash, family.Model
	tasks, err := sys.Tasks(rt)
	if err != nil {
		return ref, err
	}
	if len(tasks) < len(floor.Tasks) {
		ref.Tasks = tasks
	}
	return ref, nil
}
