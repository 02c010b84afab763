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
type externalDetector struct {
	fps                  float64
	eotTracks, intTracks map[string][][]float64
}

func openExternal(s *System, rt Runtime) (Detector, error) {
	dir := s.resolve(s.values["dir"].(string), rt)
	d := &externalDetector{}
	for i, task := range []floor.Task{floor.TaskEOT, floor.TaskINT} {
		p, err := score.ReadProbs(filepath.Join(dir, ProbsFileNames[i]), rt.Limits.OrDefault())
		if err != nil {
			return nil, fmt.Errorf("external: %w", err)
		}
		if p.Task != task {
			return nil, fmt.Errorf("external: %s holds task %s", ProbsFileNames[i], p.Task)
		}
		if i > 0 && p.FrameRate != d.fps {
			return nil, fmt.Errorf("external: %s is at %g Hz, %s at %g Hz; both must share one grid", ProbsFileNames[0], d.fps, ProbsFileNames[1], p.FrameRate)
		}
		d.fps = p.FrameRate
		tracks := map[string][][]float64{}
		for _, c := range p.Conversations {
			tracks[c.ID] = c.Speakers
		}
		if task == floor.TaskEOT {
			d.eotTracks = tracks
		} else {
			d.intTracks = tracks
		}
	}
	return d, nil
}

func (d *externalDetector) Detect(_ context.Context, c *Conversation) (*Scores, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	s := &Scores{FrameRate: d.fps}
	frames := frameCount(c.Duration, d.fps)
	for _, t := range []struct {
		name   string
		tracks map[string][][]float64
		dst    *[][]float64
	}{{"eot", d.eotTracks, &s.EOT}, {"int", d.intTracks, &s.INT}} {
		tracks, ok := t.tracks[c.ID]
		if !ok {
			return nil, fmt.Errorf("external: conversation %q is not in probs-%s.json", c.ID, t.name)
		}
		if len(tracks) != len(c.Channels) {
			return nil, fmt.Errorf("external: conversation %q has %d speakers, probs-%s.json has %d tracks", c.ID, len(c.Channels), t.name, len(tracks))
		}
		for k, tr := range tracks {
			if len(tr) != frames {
				return nil, fmt.Errorf("external: conversation %q speaker_%d in probs-%s.json has %d frames, expected %d", c.ID, k+1, t.name, len(tr), frames)
			}
			*t.dst = append(*t.dst, slices.Clone(tr))
		}
	}
	return s, nil
}

func (d *externalDetector) Close() error { return nil }
