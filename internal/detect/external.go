package detect

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
)

// ProbsFileNames are the probability files detect writes and an external
// system reads, EOT first.
var ProbsFileNames = []string{"probs-eot.json", "probs-int.json"}

var externalParams = []Param{
	{Name: "dir", Kind: KindPath, Doc: "folder holding probs-eot.json and probs-int.json"},
}

// externalDetector passes on score tracks made elsewhere. Their causality is
// the producer's responsibility; what is checked here is that every
// conversation is present with one track per channel on the right grid.
// tracks holds the tasks the system scores (System.Tasks) only.
type externalDetector struct {
	fps    float64
	tasks  []floor.Task
	tracks map[floor.Task]map[string][][]float64
}

func openExternal(s *System, rt Runtime) (Detector, error) {
	dir := s.resolve(s.values["dir"].(string), rt)
	tasks, err := s.externalTasks(rt)
	if err != nil {
		return nil, err
	}
	d := &externalDetector{tasks: tasks, tracks: map[floor.Task]map[string][][]float64{}}
	first := ""
	for _, task := range tasks {
		name := probsFileName(task)
		p, err := score.ReadProbs(filepath.Join(dir, name), rt.Limits.OrDefault())
		if err != nil {
			return nil, fmt.Errorf("external: %w", err)
		}
		if p.Task != task {
			return nil, fmt.Errorf("external: %s holds task %s", name, p.Task)
		}
		if first != "" && p.FrameRate != d.fps {
			return nil, fmt.Errorf("external: %s is at %g Hz, %s at %g Hz; both must share one grid", first, d.fps, name, p.FrameRate)
		}
		first, d.fps = name, p.FrameRate
		tracks := map[string][][]float64{}
		for _, c := range p.Conversations {
			tracks[c.ID] = c.Speakers
		}
		d.tracks[task] = tracks
	}
	return d, nil
}

// probsFileName is the probability file of task t (ProbsFileNames).
func probsFileName(t floor.Task) string {
	return ProbsFileNames[slices.Index(floor.Tasks, t)]
}

func (d *externalDetector) Detect(_ context.Context, c *Conversation) (*Scores, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	s := &Scores{FrameRate: d.fps}
	frames := frameCount(c.Duration, d.fps)
	for _, task := range d.tasks {
		name := probsFileName(task)
		tracks, ok := d.tracks[task][c.ID]
		if !ok {
			return nil, fmt.Errorf("external: conversation %q is not in %s", c.ID, name)
		}
		if len(tracks) != c.speakers() {
			return nil, fmt.Errorf("external: conversation %q has %d speakers, %s has %d tracks", c.ID, c.speakers(), name, len(tracks))
		}
		out := make([][]float64, len(tracks))
		for k, tr := range tracks {
			if len(tr) != frames {
				return nil, fmt.Errorf("external: conversation %q speaker_%d in %s has %d frames, expected %d", c.ID, k+1, name, len(tr), frames)
			}
			out[k] = slices.Clone(tr)
		}
		if task == floor.TaskEOT {
			s.EOT = out
		} else {
			s.INT = out
		}
	}
	return s, nil
}

func (d *externalDetector) Close() error { return nil }
