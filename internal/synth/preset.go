package synth

import (
	"fmt"
	"math/rand/v2"

	"github.com/floorbench/floorbench/internal/dialogue"
)

// Preset is a named corpus design.
type Preset struct {
	Name          string
	Conversations []ConversationSpec
}

// PresetNames lists the presets `corpus generate --preset` accepts.
var PresetNames = []string{"mptb", "tiny", "train", "unheard"}

// PresetByName returns a preset's conversation specs. The seed only moves
// conversation lengths; the design cells are fixed.
func PresetByName(name string, seed uint64) (Preset, error) {
	switch name {
	case "mptb":
		return mptbPreset(seed), nil
	case "tiny":
		return tinyPreset(), nil
	case "train":
		return trainPreset(seed), nil
	case "unheard":
		return unheardPreset(seed), nil
	}
	return Preset{}, fmt.Errorf("unknown preset %q (want one of %v)", name, PresetNames)
}

// OverlapShares say how often speakers react to overlap as people do
// (docs/corpora.md#timing-and-hard-cases gives each value's source or
// states it as an assumption). They are preset parameters: a spec carries
// them to the floor planner.
type OverlapShares struct {
	// BackchannelsInPauses is the share of backchannels and non-content
	// vocalisations spoken into a pause of the holder's speech (a silence
	// inside one of its utterances, where the holder resumes as rendered)
	// rather than over its speech.
	BackchannelsInPauses float64
	// Restarts is the share of non-floor-taking vocalisations spoken over
	// a holder's speech at which the holder cuts off, stays silent a few
	// hundred milliseconds and restarts the same turn.
	Restarts float64
	// ClaimPauses is the share of successful claims after which the
	// claimer pauses before going on with the turn; after the others the
	// claimer runs straight on.
	ClaimPauses float64
}

// presetOverlap are the shares of both presets.
var presetOverlap = OverlapShares{BackchannelsInPauses: 0.4, Restarts: 0.15, ClaimPauses: 0.9}

// PresetOverlap returns the presets' shares, for conversations the
// generator's stages are run on outside a preset (an agent scenario's
// lead-in).
func PresetOverlap() OverlapShares { return presetOverlap }

// mptbSeconds is the mean planned length of an mptb conversation: the
// paper's 6.89 h over 240 conversations is 103.35 s; the rendered
// conversation adds lead and tail silence and the planner's overlaps.
const mptbSeconds = 100.0

// mptbPreset is MPTB's composition (§3.2, §D.1): speaker counts 2-5 x six
// interaction types x 10 conversations; in every cell the first two are
// dev and the other eight test (48 / 192).
func mptbPreset(seed uint64) Preset {
	return cellsPreset("mptb", seed, 10, mptbSeconds, func(i int) dialogue.Split {
		if i < 2 {
			return dialogue.Dev
		}
		return dialogue.Test
	}, nil)
}

// cellsPreset is a preset of perCell conversations in every cell of
// speaker count (2 to 5) x interaction type, with ids
// <name>-<n>p-<type>-<i>, split by their index i in the cell, of seconds
// spread by lengthFactor on the conversation's own stream; mark, unless
// nil, sets what the preset casts from.
func cellsPreset(name string, seed uint64, perCell int, seconds float64, split func(i int) dialogue.Split, mark func(*ConversationSpec)) Preset {
	p := Preset{Name: name}
	for n := 2; n <= 5; n++ {
		for _, typ := range dialogue.InteractionTypes {
			for i := range perCell {
				id := fmt.Sprintf("%s-%dp-%s-%02d", name, n, typ, i)
				rng := StreamFor(seed, id, "length")
				c := ConversationSpec{ID: id, Split: split(i), Type: typ, Speakers: n,
					Seconds: seconds * lengthFactor(rng), Overlap: presetOverlap}
				if mark != nil {
					mark(&c)
				}
				p.Conversations = append(p.Conversations, c)
			}
		}
	}
	return p
}

// lengthFactor spreads conversation lengths by ±20% around the mean.
func lengthFactor(rng *rand.Rand) float64 { return 0.8 + 0.4*rng.Float64() }

// tinyHoldScale makes holds common in the tiny preset: at MPTB's rates
// (about one hold per 15 turns) its three 20-second dev conversations
// would usually have none, and the dev EOT sweep nothing to measure
// fp_rate on.
const tinyHoldScale = 3

// tinyPreset is twelve short conversations covering every speaker count
// and every interaction type, three of them dev: for tests and the
// quickstart.
func tinyPreset() Preset {
	p := Preset{Name: "tiny"}
	for i := range 12 {
		n, typ := 2+i%4, dialogue.InteractionTypes[i%6]
		split := dialogue.Test
		if i%5 == 0 {
			split = dialogue.Dev
		}
		p.Conversations = append(p.Conversations, ConversationSpec{ID: fmt.Sprintf("tiny-%02d-%dp-%s", i, n, typ),
			Split: split, Type: typ, Speakers: n, Seconds: 20, HoldScale: tinyHoldScale, Overlap: presetOverlap})
	}
	return p
}

// trainSeconds is the planned length of a train conversation.
const trainSeconds = 60.0

// trainPreset is the training data of floorbench's own detector
// (docs/corpora.md#train-preset): speaker counts 2-5 x six interaction
// types x 4 conversations of about a minute, 96 in all (about 1.7 hours
// of speaker channels), cast from TrainVoices and noised with the train
// noises, under ids (train-...) and, by the seed the user gives, streams
// no evaluation preset has. The last conversation of each cell is marked
// test: the training script's held-out validation, never an evaluation
// split.
func trainPreset(seed uint64) Preset {
	return cellsPreset("train", seed, 4, trainSeconds, func(i int) dialogue.Split {
		if i == 3 {
			return dialogue.Test
		}
		return dialogue.Dev
	}, func(c *ConversationSpec) { c.Train = true })
}

// unheardPreset is an evaluation corpus in voices a detector trained on
// the train preset never heard (docs/corpora.md#unheard-preset): mptb's
// cells (speaker counts 2-5 x six interaction types) with 3
// conversations each, the first dev and the other two test (24 / 48),
// of mptb's planned length, cast from UnheardVoices and noised as mptb
// is (white, pink or babble).
func unheardPreset(seed uint64) Preset {
	return cellsPreset("unheard", seed, 3, mptbSeconds, func(i int) dialogue.Split {
		if i == 0 {
			return dialogue.Dev
		}
		return dialogue.Test
	}, func(c *ConversationSpec) { c.Unheard = true })
}
