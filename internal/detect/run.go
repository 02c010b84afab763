package detect

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/atomicfile"
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
// tracks as the EOT and INT probability files (docs/formats.md#probability-files); the file of a task the
// detector does not score (its tracks are nil) is nil. progress, when not
// nil, is called after each conversation.
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
			if s.EOT == nil {
				eot = nil
			}
			if s.INT == nil {
				intr = nil
			}
		}
		for _, p := range []*score.ProbsFile{eot, intr} {
			if p != nil {
				p.Conversations = append(p.Conversations, score.ConversationProbs{ID: c.ID, Speakers: s.Tracks(p.Task)})
			}
		}
		if progress != nil {
			progress()
		}
	}
	return eot, intr, nil
}

// WriteProbsFiles writes probs-eot.json and probs-int.json into dir, or the
// one of the task a system scores where the other file is nil; a stale
// file of a task not scored is removed, so the folder read as an external
// system scores what this one does. The files are written whole to
// temporary files first (atomicfile.Create) and renamed into place only
// when all are complete, so a failure leaves no partial output behind.
func WriteProbsFiles(dir string, eot, intr *score.ProbsFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := []*score.ProbsFile{eot, intr}
	temps := make([]*atomicfile.File, len(files))
	for i, p := range files {
		if p == nil {
			continue
		}
		f, err := atomicfile.Create(filepath.Join(dir, ProbsFileNames[i]), ".probs-")
		if err != nil {
			return err
		}
		defer f.Discard()
		temps[i] = f
		if err := score.WriteProbs(f, p); err != nil {
			return fmt.Errorf("write %s probabilities: %w", p.Task, err)
		}
	}
	for i, name := range ProbsFileNames {
		if temps[i] == nil {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		if err := temps[i].Commit(); err != nil {
			if i == 1 && temps[0] != nil {
				os.Remove(filepath.Join(dir, ProbsFileNames[0]))
			}
			return err
		}
	}
	return nil
}
