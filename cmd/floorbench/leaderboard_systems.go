package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/floorbench/floorbench/internal/agent/seated"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
)

// systemFiles are a system's dev and test files; operatingPoint says how
// a system without a threshold got its operating point (a seated agent).
type systemFiles struct{ name, dev, test, operatingPoint string }

func parseSystem(s string) (systemFiles, error) {
	name, files, ok := strings.Cut(s, "=")
	dev, test, ok2 := strings.Cut(files, ",")
	if !ok || !ok2 || name == "" || dev == "" || test == "" {
		return systemFiles{}, fmt.Errorf("--system %q: want NAME=DEV,TEST", s)
	}
	return systemFiles{name: name, dev: dev, test: test}, nil
}

// parseAgent reads --agent NAME=DIR: a seated run's folder, whose
// seated.json says it is one.
func parseAgent(s string) (systemFiles, error) {
	name, dir, ok := strings.Cut(s, "=")
	if !ok || name == "" || dir == "" {
		return systemFiles{}, fmt.Errorf("--agent %q: want NAME=DIR", s)
	}
	res, err := seated.ReadResult(dir)
	if err != nil {
		return systemFiles{}, fmt.Errorf("--agent %s: %w", name, err)
	}
	return systemFiles{name: name, dev: filepath.Join(dir, seated.PredictionsName("dev")),
		test: filepath.Join(dir, seated.PredictionsName("test")), operatingPoint: res.OperatingPoint}, nil
}

// Names of a system's files in TurnBench's baselines/ layout.
const (
	baselineDev  = "predictions-dev.json"
	baselineTest = "predictions-test.json"
)

// discoverBaselines lists the systems of a TurnBench baselines/ folder: each
// subfolder with both prediction files, by name. A subfolder with only one
// of them is skipped with a note on stderr (TurnBench publishes some
// systems' dev predictions only).
func discoverBaselines(dir string, stderr io.Writer) ([]systemFiles, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("--baselines: %w", err)
	}
	var out []systemFiles
	for _, e := range entries {
		// Any entry that is not a folder (or a link to one) has no files in it.
		sf := systemFiles{name: e.Name(), dev: filepath.Join(dir, e.Name(), baselineDev), test: filepath.Join(dir, e.Name(), baselineTest)}
		dev, test := isFile(sf.dev), isFile(sf.test)
		switch {
		case dev && test:
			out = append(out, sf)
		case dev:
			fmt.Fprintf(stderr, "floorbench: %s: skipped, no %s\n", filepath.Join(dir, e.Name()), baselineTest)
		case test:
			fmt.Fprintf(stderr, "floorbench: %s: skipped, no %s\n", filepath.Join(dir, e.Name()), baselineDev)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--baselines %s: no subfolder has both %s and %s", dir, baselineDev, baselineTest)
	}
	return out, nil
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// evaluateSystem evaluates one system: a pair of probability files on
// their task, a pair of submissions on both tasks.
func evaluateSystem(sf systemFiles, devGold, testGold *floor.GoldSet, p score.Params, lim limits.Limits) ([]*score.TaskEvaluation, error) {
	dev, err := score.ReadSystemFile(sf.dev, lim)
	if err != nil {
		return nil, err
	}
	test, err := score.ReadSystemFile(sf.test, lim)
	if err != nil {
		return nil, err
	}
	switch {
	case dev.Probs != nil && test.Probs != nil:
		ev, err := score.Evaluate(sf.name, devGold, testGold, dev.Probs, test.Probs, p)
		return []*score.TaskEvaluation{ev}, err
	case dev.Submission != nil && test.Submission != nil:
		// Checked here first so that an error names the file.
		if err := score.CheckSubmission(dev.Submission, devGold); err != nil {
			return nil, fmt.Errorf("%s: %w", sf.dev, err)
		}
		if err := score.CheckSubmission(test.Submission, testGold); err != nil {
			return nil, fmt.Errorf("%s: %w", sf.test, err)
		}
		if sf.operatingPoint != "" {
			return score.EvaluateAgent(sf.name, devGold, testGold, dev.Submission, test.Submission, p, sf.operatingPoint)
		}
		return score.EvaluateSubmissions(sf.name, devGold, testGold, dev.Submission, test.Submission, p)
	}
	return nil, fmt.Errorf("--system %s: %s is %s and %s is %s; give two of one kind", sf.name, sf.dev, fileKind(dev), sf.test, fileKind(test))
}

func fileKind(f score.SystemFile) string {
	if f.Submission != nil {
		return "a submission"
	}
	return "a probability file"
}
