package seated

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/floorbench/floorbench/internal/atomicfile"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
)

// Job is one seated run: a corpus's split seated with one agent, the
// recordings and predictions written into Out.
type Job struct {
	Corpus   *corpus.Corpus
	Split    string // dev, test, or "" for both
	Speakers Speakers
	Options  Options
	Params   Params
	Out      string
}

// OperatingPoint is how a seated agent's operating point is reported: it
// has no threshold; what it does is its operating point.
const OperatingPoint = "as it behaves"

// Result is seated.json (docs/formats.md#seated-runs): what a seated run
// did and made.
type Result struct {
	SchemaVersion  int     `json:"schema_version"`
	CorpusSHA256   string  `json:"corpus_sha256"`
	Agent          string  `json:"agent"`
	Protocol       string  `json:"protocol"`
	Model          string  `json:"model,omitempty"`
	Rate           float64 `json:"rate"`
	OperatingPoint string  `json:"operating_point"`
	Params         Params  `json:"params"`
	Seats          int     `json:"seats"`
	Summary
	// Predictions are the submissions written, one per split; none when a
	// session failed.
	Predictions []PredictionsFile `json:"predictions"`
}

// PredictionsFile is one split's submission in Out.
type PredictionsFile struct {
	Split         string `json:"split"`
	File          string `json:"file"`
	SHA256        string `json:"sha256"`
	Conversations int    `json:"conversations"`
	EOT           int    `json:"eot_predictions"`
	INT           int    `json:"int_predictions"`
}

// ResultSchemaVersion is the version of seated.json this code writes and
// reads.
const ResultSchemaVersion = 1

// ResultName is the run's summary in Out; PredictionsName the submission
// of a split, named as TurnBench's baselines/ name theirs, so that
// `floorbench leaderboard --baselines` reads a folder of seated runs.
const ResultName = "seated.json"

// PredictionsName is the file name of a split's submission.
func PredictionsName(split string) string { return "predictions-" + split + ".json" }

// ReadResult reads dir/seated.json, the result of a seated run whose
// predictions lie beside it.
func ReadResult(dir string) (*Result, error) {
	path := filepath.Join(dir, ResultName)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var r Result
	if err := d.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.SchemaVersion != ResultSchemaVersion || r.OperatingPoint != OperatingPoint {
		return nil, fmt.Errorf("%s: schema_version %d, operating_point %q: not a seated run's result", path, r.SchemaVersion, r.OperatingPoint)
	}
	return &r, nil
}

// ErrFailedSessions is wrapped by Run's error when a session failed after
// every retry: the other recordings are kept for the next run, and no
// predictions are written.
var ErrFailedSessions = errors.New("sessions failed")

// Seats lists the job's seats.
func (j Job) Seats() ([]Seat, error) {
	convs, err := j.Corpus.Conversations(j.Split)
	if err != nil {
		return nil, err
	}
	return Seats(convs, j.Speakers), nil
}

// Run plays every seat (resuming what Out holds), then derives each
// split's predictions from the recordings and writes them with seated.json.
// When a session failed it writes seated.json listing the failures,
// removes any earlier predictions of the splits, and returns the result
// with an error wrapping ErrFailedSessions.
func (j Job) Run(ctx context.Context) (*Result, error) {
	if err := j.Params.Validate(); err != nil {
		return nil, err
	}
	seats, err := j.Seats()
	if err != nil {
		return nil, err
	}
	sum, err := Run(ctx, j.Corpus, seats, j.Options, j.Out)
	if err != nil {
		return nil, err
	}
	res, err := j.result(seats, sum)
	if err != nil {
		return nil, err
	}
	if len(sum.Failed) > 0 {
		for _, split := range j.splits() {
			if err := os.Remove(filepath.Join(j.Out, PredictionsName(split))); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
		}
		return res, errors.Join(writeJSON(filepath.Join(j.Out, ResultName), res), failedError(sum.Failed, len(seats)))
	}
	for _, split := range j.splits() {
		pf, err := j.writePredictions(ctx, split, seats)
		if err != nil {
			return nil, err
		}
		res.Predictions = append(res.Predictions, pf)
	}
	return res, writeJSON(filepath.Join(j.Out, ResultName), res)
}

func (j Job) result(seats []Seat, sum Summary) (*Result, error) {
	sha, err := digest.FileSHA256(filepath.Join(j.Corpus.Dir, corpus.ManifestName))
	if err != nil {
		return nil, err
	}
	o := j.Options
	return &Result{SchemaVersion: ResultSchemaVersion, CorpusSHA256: sha, Agent: o.Agent, Protocol: o.Endpoint.Protocol, Model: o.Model,
		Rate: o.Rate(), OperatingPoint: OperatingPoint, Params: j.Params, Seats: len(seats), Summary: sum,
		Predictions: []PredictionsFile{}}, nil
}

// splits are the splits the job covers that have conversations.
func (j Job) splits() []string {
	var out []string
	for _, split := range []string{"dev", "test"} {
		if j.Split != "" && j.Split != split {
			continue
		}
		if convs, _ := j.Corpus.Conversations(split); len(convs) > 0 {
			out = append(out, split)
		}
	}
	return out
}

// writePredictions derives one split's submission and writes it
// atomically.
func (j Job) writePredictions(ctx context.Context, split string, seats []Seat) (PredictionsFile, error) {
	convs, err := j.Corpus.Conversations(split)
	if err != nil {
		return PredictionsFile{}, err
	}
	sub, err := Predict(ctx, j.Corpus, convs, seats, j.Out, j.Params)
	if err != nil {
		return PredictionsFile{}, err
	}
	name := PredictionsName(split)
	path := filepath.Join(j.Out, name)
	if err := atomicfile.Write(path, corpus.PartialPrefix, func(w io.Writer) error { return score.WriteSubmission(w, sub) }); err != nil {
		return PredictionsFile{}, err
	}
	sha, err := digest.FileSHA256(path)
	if err != nil {
		return PredictionsFile{}, err
	}
	return PredictionsFile{Split: split, File: name, SHA256: sha, Conversations: len(convs),
		EOT: sub.Predictions(floor.TaskEOT), INT: sub.Predictions(floor.TaskINT)}, nil
}

// failedError lists the failed seats.
func failedError(failed []Failure, seats int) error {
	var b strings.Builder
	for i, f := range failed {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s seat %d: %s", f.Conversation, f.Seat, f.Error)
	}
	return fmt.Errorf("%w: %d of %d sessions (%s); no predictions written; run again to retry them", ErrFailedSessions, len(failed), seats, b.String())
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, corpus.PartialPrefix, append(data, '\n'))
}
