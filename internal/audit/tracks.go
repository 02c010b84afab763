package audit

import (
	"fmt"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/atomicfile"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
)

// writeTracks writes every feature's score tracks as the probability
// files detect writes: dir/FEATURE/SPLIT/probs-TASK.json for each split
// with a labelled conversation. A leaderboard then ranks a feature beside
// a system's probability files, with paired comparisons on the same
// resamples (floorbench leaderboard --system FEATURE=DEV,TEST), which the
// audit's own report cannot give. The folder appears whole, or not at
// all; one already there (not empty) is an error.
func writeTracks(dir string, splits map[string]*labelledSplit, features []Feature, fps float64) error {
	err := atomicfile.WriteDir(dir, ".audit-tracks-", func(tmp string) error {
		for _, f := range features {
			for _, name := range []string{"dev", "test"} {
				s := splits[name]
				if len(s.gold.Conversations) == 0 {
					continue
				}
				var eot, intr *score.ProbsFile
				if f.Task == floor.TaskEOT {
					eot = s.probs(f, fps)
				} else {
					intr = s.probs(f, fps)
				}
				if err := detect.WriteProbsFiles(filepath.Join(tmp, f.Name, name), eot, intr); err != nil {
					return fmt.Errorf("feature %s, %s split: %w", f.Name, name, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("write the audit's tracks to %s: %w", dir, err)
	}
	return nil
}
