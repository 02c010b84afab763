package activities

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"

	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/spec"
)

// checkScheduleRoot checks, before any of them is read, that every local
// path a scheduled spec names lies under root, the one folder the
// operator lets scheduled runs read on this worker
// (docs/operations.md#nightly-schedules): its corpus folders, its system
// specs and the files those name (models, probability files). Paths are
// compared after their symbolic links are resolved, so a link under the
// root that leads out of it is refused. With no root, a scheduled spec
// may name no local path at all: its corpora are s3: or generate: and its
// systems builtin:.
func checkScheduleRoot(sw *spec.Sweep, root string, rt detect.Runtime) error {
	for i, c := range sw.Corpora {
		if c.Path == "" {
			continue
		}
		if err := underRoot(c.Path, root); err != nil {
			return fmt.Errorf("corpora[%d] (%s): %w", i, c.Name, err)
		}
	}
	for i, s := range sw.Systems {
		if s.Spec == "" {
			continue
		}
		if err := underRoot(s.Spec, root); err != nil {
			return fmt.Errorf("systems[%d] (%s): %w", i, s.Name, err)
		}
		sys, err := detect.LoadSystem(s.Spec, rt.Limits.OrDefault())
		if err != nil {
			return fmt.Errorf("systems[%d] (%s): %w", i, s.Name, err)
		}
		files := sys.LocalFiles(rt)
		for _, role := range slices.Sorted(maps.Keys(files)) {
			if err := underRoot(files[role], root); err != nil {
				return fmt.Errorf("systems[%d] (%s): %s: %w", i, s.Name, role, err)
			}
		}
	}
	return nil
}

// underRoot refuses a path that is not, once its links are resolved,
// inside root.
func underRoot(path, root string) error {
	if root == "" {
		return fmt.Errorf("%s: scheduled runs read no local files on this worker (its schedule_root is not set; use s3: or generate: corpora and builtin: systems, or see docs/operations.md#nightly-schedules)", path)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("schedule_root %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, pathErr(err))
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || !filepath.IsLocal(rel) {
		if real != path {
			return fmt.Errorf("%s: leads to %s, outside the schedule root %s", path, real, root)
		}
		return fmt.Errorf("%s: outside the schedule root %s", path, root)
	}
	return nil
}

// pathErr is err without the path an *fs.PathError repeats.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
