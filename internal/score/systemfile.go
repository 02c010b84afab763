package score

import (
	"errors"
	"fmt"

	"github.com/floorbench/floorbench/internal/jsonio"
	"github.com/floorbench/floorbench/internal/limits"
)

// SystemFile is one split of a system's output as the leaderboard reads
// it: a submission (docs/formats.md#submission) or a probability file
// (docs/formats.md#probability-files); exactly one is set.
type SystemFile struct {
	Submission *Submission
	Probs      *ProbsFile
}

// ReadSystemFile reads a submission or a probability file of at most
// lim's input limit (see ParseSystemFile).
func ReadSystemFile(path string, lim limits.Limits) (SystemFile, error) {
	return jsonio.ReadFile(path, lim, ParseSystemFile)
}

// errKindFound stops the scan of top-level keys once the kind is known.
var errKindFound = errors.New("kind found")

// ParseSystemFile tells a submission from a probability file by its
// top-level keys ("predictions" against "task", "frame_rate_hz" and
// "probs") and parses it strictly as that.
func ParseSystemFile(data []byte) (SystemFile, error) {
	d := jsonio.NewDecoder(data)
	var submission, probs bool
	err := d.Object(func(key string) error {
		switch key {
		case "predictions":
			submission = true
			return errKindFound
		case "task", "frame_rate_hz", "probs":
			probs = true
			return errKindFound
		}
		return d.Skip()
	})
	switch {
	case submission:
		s, err := ParseSubmission(data)
		return SystemFile{Submission: s}, err
	case probs:
		p, err := ParseProbs(data)
		return SystemFile{Probs: p}, err
	case err != nil:
		return SystemFile{}, err
	}
	return SystemFile{}, fmt.Errorf(`neither a submission (top-level key "predictions") nor a probability file (top-level key "probs")`)
}
