package agent

import (
	"fmt"

	"github.com/floorbench/floorbench/internal/dialogue"
)

// DefaultRepeats is how many times a run plays each scenario by default
// (MPTB §5: every scenario three times per agent). Repeats are a run
// setting: the same scenario is played again, nothing is regenerated.
const DefaultRepeats = 3

// Design is what the scenario builder is asked for: one cell of a
// preset's composition.
type Design struct {
	ID        string
	Condition Condition
	Speakers  int // in the conversation, the agent included
	Type      dialogue.InteractionType
	// LeadSeconds is the planned length of the conversation before the
	// cue turn's speaker addresses the agent.
	LeadSeconds float64
}

// ScenarioPreset is a named composition of scenarios.
type ScenarioPreset struct {
	Name    string
	Designs []Design
}

// ScenarioPresetNames lists the presets `agent scenarios --preset` accepts.
var ScenarioPresetNames = []string{"mptb-agent", "tiny-agent"}

// ScenarioPresetByName returns a preset's designs.
func ScenarioPresetByName(name string) (ScenarioPreset, error) {
	switch name {
	case "mptb-agent":
		return mptbAgentPreset(), nil
	case "tiny-agent":
		return tinyAgentPreset(), nil
	}
	return ScenarioPreset{}, fmt.Errorf("unknown scenario preset %q (want one of %v)", name, ScenarioPresetNames)
}

// Lead-in lengths: MPTB's agent scenarios are short conversations; tiny
// ones are as short as the generator allows, for tests.
const (
	mptbAgentLead = 20.0
	tinyAgentLead = 6.0
)

// mptbAgentPreset is MPTB's 120 scenarios (§5, E.3): 30 per condition,
// crossed with speaker counts 2 to 5. 30 does not split into four equal
// cells, so each condition has 8, 8, 7 and 7 scenarios over the speaker
// counts, rotated from condition to condition so that every speaker count
// has 30 scenarios too. Interaction types cycle within a condition (five
// of each of the six per condition). Then the scenes: sceneScenarios of
// each.
func mptbAgentPreset() ScenarioPreset {
	p := ScenarioPreset{Name: "mptb-agent"}
	for ci, c := range MPTBConditions {
		k := 0
		for j := range 4 {
			n := 2 + j
			cell := 7
			if (j-ci+4)%4 < 2 {
				cell = 8
			}
			for i := range cell {
				p.Designs = append(p.Designs, Design{
					ID:        fmt.Sprintf("mptb-agent-%s-%dp-%02d", shortName(c), n, i),
					Condition: c, Speakers: n, Type: dialogue.InteractionTypes[k%len(dialogue.InteractionTypes)],
					LeadSeconds: mptbAgentLead,
				})
				k++
			}
		}
	}
	for _, c := range SceneConditions {
		counts := sceneSpeakers(c)
		for k := range sceneScenarios {
			n := counts[k%len(counts)]
			p.Designs = append(p.Designs, Design{
				ID:        fmt.Sprintf("mptb-agent-%s-%dp-%02d", shortName(c), n, k/len(counts)),
				Condition: c, Speakers: n, Type: dialogue.InteractionTypes[k%len(dialogue.InteractionTypes)],
				LeadSeconds: mptbAgentLead,
			})
		}
	}
	return p
}

// sceneScenarios is how many scenarios of each scene mptb-agent has: 12
// split evenly over the speaker counts the scene allows and over the six
// interaction types (two each).
const sceneScenarios = 12

// sceneSpeakers are the speaker counts a scene is built with: side talk
// needs two participants besides the agent.
func sceneSpeakers(c Condition) []int {
	if c == StopOnSideTalk {
		return []int{3, 4, 5}
	}
	return []int{2, 3, 4, 5}
}

// tinySceneSpeakers are the speaker counts of tiny-agent's scenes, in
// SceneConditions order: side talk needs three; with them every speaker
// count has three or four scenarios.
var tinySceneSpeakers = []int{3, 2, 4, 5, 2, 3}

// tinyAgentPreset is two scenarios per MPTB condition: the START ones
// with 2 and 4 speakers, the STOP ones with 3 and 5, so that every
// speaker count appears twice and each has both conditions of one axis to
// score; then one scenario of each scene. For tests and the quickstart.
func tinyAgentPreset() ScenarioPreset {
	p := ScenarioPreset{Name: "tiny-agent"}
	for ci, c := range MPTBConditions {
		for j := range 2 {
			n := 2 + 2*j
			if c.Stop() {
				n++
			}
			p.Designs = append(p.Designs, Design{
				ID:        fmt.Sprintf("tiny-agent-%s-%dp", shortName(c), n),
				Condition: c, Speakers: n, Type: dialogue.InteractionTypes[(2*ci+j)%len(dialogue.InteractionTypes)],
				LeadSeconds: tinyAgentLead,
			})
		}
	}
	for si, c := range SceneConditions {
		n := tinySceneSpeakers[si]
		p.Designs = append(p.Designs, Design{
			ID:        fmt.Sprintf("tiny-agent-%s-%dp", shortName(c), n),
			Condition: c, Speakers: n, Type: dialogue.InteractionTypes[si%len(dialogue.InteractionTypes)],
			LeadSeconds: tinyAgentLead,
		})
	}
	return p
}

// shortName is a condition's name in scenario ids.
func shortName(c Condition) string {
	switch c {
	case StartAfterEOT:
		return "start-eot"
	case StartDuringHold:
		return "start-hold"
	case StopOnInterruption:
		return "stop-int"
	case StopOnSideTalk:
		return "stop-side"
	case StopOnBackgroundSpeech:
		return "stop-radio"
	case StopOnVocalisation:
		return "stop-voc"
	case StopOnNoiseBurst:
		return "stop-noise"
	case StartDuringFillerHold:
		return "start-filler"
	case StartDuringBackgroundHold:
		return "start-radio-hold"
	}
	return "stop-bc"
}
