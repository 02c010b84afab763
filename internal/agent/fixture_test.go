package agent

import (
	"path/filepath"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
)

// policy is how a simulated agent behaves, for recordings with known
// speech: whether it enters at a cue of each START condition and yields
// to each stimulus.
type policy struct {
	name  string
	enter map[Condition]bool
	yield map[Condition]bool
	// flaky: the agent does the opposite on repeat 1.
	flaky bool
}

var (
	neverYield  = policy{name: "never-yield", enter: map[Condition]bool{StartAfterEOT: true}, yield: map[Condition]bool{}}
	alwaysYield = policy{name: "always-yield", enter: map[Condition]bool{StartAfterEOT: true, StartDuringHold: true,
		StartDuringFillerHold: true, StartDuringBackgroundHold: true},
		yield: map[Condition]bool{StopOnInterruption: true, StopOnBackchannel: true, StopOnSideTalk: true,
			StopOnBackgroundSpeech: true, StopOnVocalisation: true, StopOnNoiseBurst: true}}
	selective = policy{name: "selective", enter: map[Condition]bool{StartAfterEOT: true}, yield: map[Condition]bool{StopOnInterruption: true}}
	flaky     = policy{name: "flaky", enter: map[Condition]bool{StartAfterEOT: true}, yield: map[Condition]bool{StopOnInterruption: true}, flaky: true}
)

// Timing of the simulated trials: the cue at 6 s; an entry 0.6 s after
// it (plus 10 ms per scenario index, so latencies differ); a STOP answer
// from cue + 0.8 s for 5 s, the stimulus 1.5 s after its onset and a stop
// 0.3 s after the stimulus; trials of 13 s.
const (
	simCue      = 6.0
	simEntry    = 0.6
	simAnswer   = 0.8
	simTalk     = 5.0
	simDelay    = 1.5
	simStop     = 0.3
	simDuration = 13.0
)

// simulate records one trial of design d (index i in its preset) by agent
// p: the recording, what the agent heard (silence: the scorer never reads
// it) and its output, whose speech is known exactly.
func simulate(p policy, i int, d Design, repeat int) (*Recording, []float32, []float32, []Segment) {
	r := &Recording{SchemaVersion: RecordingSchemaVersion, ScenarioID: d.ID, Condition: d.Condition, Speakers: d.Speakers,
		Repeat: repeat, Agent: p.name, Protocol: "duplex", Cue: simCue, ValidUntil: simDuration,
		Samples: int(simDuration * SampleRate), Duration: simDuration, Events: []ProviderEvent{}}
	if d.Condition.Hold() {
		r.Resume, r.ValidUntil = simCue+0.8, simCue+4
	}
	flip := p.flaky && repeat == 1
	var segs []Segment
	if !d.Condition.Stop() {
		if p.enter[d.Condition] != flip {
			on := simCue + simEntry + 0.01*float64(i)
			segs = []Segment{{on, on + 3}}
		}
	} else {
		on := simCue + simAnswer
		stim := on + simDelay
		r.Stimulus = &PlayedStimulus{Kind: StimulusOf(d.Condition), Speaker: 1, Delay: simDelay, Samples: 8000, Onset: &on, Start: &stim}
		if !r.Stimulus.Kind.Seated() {
			r.Stimulus.Speaker = 0
		}
		end := on + simTalk
		if p.yield[d.Condition] != flip {
			end = stim + simStop + 0.01*float64(i)
			r.Events = []ProviderEvent{{Kind: EventSpeechStarted, Time: stim + 0.2, Name: "input_audio_buffer.speech_started"}}
		}
		segs = []Segment{{on, end}}
	}
	return r, make([]float32, r.Samples), speech(simDuration, segs...), segs
}

// recordRun writes every trial of agents on the tiny-agent designs into a
// new folder, repeats times each, and returns the folder.
func recordRun(t *testing.T, repeats int, agents ...policy) string {
	t.Helper()
	dir := t.TempDir()
	preset, err := ScenarioPresetByName("tiny-agent")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range agents {
		for i, d := range preset.Designs {
			for k := range repeats {
				r, in, out, _ := simulate(p, i, d, k)
				if err := WriteRecording(dir, TrialName(p.name, d.ID, k), r, in, out); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return dir
}

// scoreRun re-scores a recorded run with p.
func scoreRun(t *testing.T, dir string, p ScoreParams) Results {
	t.Helper()
	trials, err := ReadTrials(dir, p, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	return Score(trials, p)
}

func agentResult(t *testing.T, r Results, name string) AgentResult {
	t.Helper()
	for _, a := range r.Agents {
		if a.Agent == name {
			return a
		}
	}
	t.Fatalf("no agent %s in %v", name, r.Agents)
	return AgentResult{}
}

func testdata(name string) string { return filepath.Join("testdata", name) }
