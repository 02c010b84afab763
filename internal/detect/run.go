package detect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
)

// Source hands a detector a corpus's conversations one at a time, so that a
// corpus is never in memory whole: Load(i) reads conversation i of Count.
type Source struct {
	Count int
	Load  func(ctx context.Context, i int) (*Conversation, error)
}

// ProbsFiles runs d over every conversation of src and collects the score
// tracks as the EOT and INT probability files (docs/formats.md#probability-files). progress, when
// not nil, is called after each conversation.
func ProbsFiles(ctx context.Context, d Detector, src Source, progress func()) (eot, intr *score.ProbsFile, err error) {
	eot = &score.ProbsFile{Task: floor.TaskEOT}
	intr = &score.ProbsFile{Task: floor.TaskINT}
	for i := 0; i < src.Count; i++ {
		c, err := src.Load(ctx, i)
		if err != nil {
			return nil, nil, err
		}
		s, err := d.Detect(ctx, c)
		if err != nil {
			return nil, nil, fmt.Errorf("conversation %q: %w", c.ID, err)
		}
		if i == 0 {
			eot.FrameRate, intr.FrameRate = s.FrameRate, s.FrameRate
		}
		eot.Conversations = append(eot.Conversations, score.ConversationProbs{ID: c.ID, Speakers: s.EOT})
		intr.Conversations = append(intr.Conversations, score.ConversationProbs{ID: c.ID, Speakers: s.INT})
		if progress != nil {
			progress()
		}
	}
	return eot, intr, nil
}

// WriteProbsFiles writes probs-eot.json and probs-int.json into dir. Both
// are written to temporary files first and renamed into place only when
// both are complete, so a failure leaves no partial output behind.
func WriteProbsFiles(dir string, eot, intr *score.ProbsFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var temps []string
	defer func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}()
	for _, p := range []*score.ProbsFile{eot, intr} {
		f, err := os.CreateTemp(dir, ".probs-*.tmp")
		if err != nil {
			return err
		}
		temps = append(temps, f.Name())
		// CreateTemp makes the file private; the output is an ordinary file.
		if err := errors.Join(f.Chmod(0o644), score.WriteProbs(f, p), f.Close()); err != nil {
			return fmt.Errorf("write %s probabilities: %w", p.Task, err)
		}
	}
	for i, name := range ProbsFileNames {
		if err := os.Rename(temps[i], filepath.Join(dir, name)); err != nil {
			if i == 1 {
				os.Remove(filepath.Join(dir, ProbsFileNames[0]))
			}
			return err
		}
	}
	temps = nil
	return nil
}
