package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/floorbench/floorbench/internal/limits"
)

// maxTrials bounds the recordings one folder may hold.
const maxTrials = 100000

// ReadTrials decides every recording in dir (one folder per trial, each
// with a recording.json; folders being written, named .partial-*, are
// skipped) from its stored output audio: no agent is contacted, so a
// stored run can be scored again with other parameters. Two recordings of
// the same agent, protocol, scenario and repeat, or one scenario under two
// conditions, are an error naming both folders. lim bounds p's bootstrap.
func ReadTrials(dir string, p ScoreParams, lim limits.Limits) ([]Trial, error) {
	if err := p.Validate(lim); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var trials []Trial
	seen := map[string]string{}
	conditions := map[string]Condition{}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		folder := filepath.Join(dir, e.Name())
		if _, err := os.Lstat(filepath.Join(folder, RecordingName)); os.IsNotExist(err) {
			continue
		}
		if len(trials) == maxTrials {
			return nil, fmt.Errorf("%s: more than %d recordings", dir, maxTrials)
		}
		t, err := readTrial(folder, p)
		if err != nil {
			return nil, err
		}
		key := fmt.Sprintf("%s %s %s %d", t.Agent, t.Protocol, t.ScenarioID, t.Repeat)
		if prev, ok := seen[key]; ok {
			return nil, fmt.Errorf("%s and %s: both record agent %s over %s, scenario %s, repeat %d", prev, folder, t.Agent, t.Protocol, t.ScenarioID, t.Repeat)
		}
		seen[key] = folder
		if c, ok := conditions[t.ScenarioID]; ok && c != t.Condition {
			return nil, fmt.Errorf("%s: scenario %s as %s, another recording has it as %s", folder, t.ScenarioID, t.Condition, c)
		}
		conditions[t.ScenarioID] = t.Condition
		trials = append(trials, t)
	}
	if len(trials) == 0 {
		return nil, fmt.Errorf("%s: no recordings (no folder with a %s)", dir, RecordingName)
	}
	return trials, nil
}

func readTrial(folder string, p ScoreParams) (Trial, error) {
	r, err := ReadRecording(folder)
	if err != nil {
		return Trial{}, err
	}
	var out []float32
	if r.HasAudio() {
		if out, err = r.ReadOutput(folder); err != nil {
			return Trial{}, err
		}
	}
	return DecideTrial(r, out, p), nil
}
