package synth

import (
	"fmt"
	"math/rand/v2"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/dialogue"
)

// Voice is one synthetic speaker timbre: an engine voice with a fixed
// pitch and speaking rate. Its ID is what the manifest and `corpus stats`
// list, and what the dev/test disjointness is about.
type Voice struct {
	ID     string `json:"id"`
	Engine string `json:"engine"`
	Name   string `json:"name"`
	Pitch  int    `json:"pitch"` // espeak-ng -p (0-99); flite: mean F0 in Hz; festival: 0 (the voice's own)
	Rate   int    `json:"rate"`  // words per minute
}

// espeakAccents are espeak-ng's English accents (TOOLING.md).
var espeakAccents = []string{"en", "en-us", "en-gb-scotland", "en-gb-x-gbclan", "en-gb-x-rp", "en-gb-x-gbcwmd", "en-029", "en-us-nyc"}

// espeakVariants are the human-sounding variants (no whisper, no robots).
var espeakVariants = []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "f1", "f2", "f3", "f4", "f5"}

// fliteVoices are Debian flite's 16 kHz voices with a plausible mean F0.
var fliteVoices = []struct {
	name string
	f0   int
}{{"slt", 170}, {"rms", 95}, {"awb", 110}, {"kal16", 105}}

// festivalVoices are the voices of Debian's festvox-us-slt-hts (HTS, 32 kHz),
// festvox-kallpc16k and festvox-kdlpc16k (diphone, 16 kHz), with their
// speaking rates.
var festivalVoices = []struct {
	name string
	rate int
}{{"cmu_us_slt_arctic_hts", 170}, {"kal_diphone", 180}, {"ked_diphone", 165}}

// Inventory is every voice the generator can cast, in a fixed order:
// 96 espeak-ng accent x variant voices, 4 flite voices and 3 festival
// voices. Pitch and rate
// are spread deterministically over the inventory so that voices sharing
// an accent or a variant still differ.
func Inventory() []Voice {
	var vs []Voice
	i := 0
	for _, acc := range espeakAccents {
		for _, va := range espeakVariants {
			pitch := 35 + (i*37)%31 // 35..65
			rate := 155 + (i*53)%31 // 155..185 wpm
			vs = append(vs, Voice{ID: fmt.Sprintf("espeak-ng:%s+%s", acc, va), Engine: EngineEspeak,
				Name: acc + "+" + va, Pitch: pitch, Rate: rate})
			i++
		}
	}
	for j, fv := range fliteVoices {
		vs = append(vs, Voice{ID: "flite:" + fv.name, Engine: EngineFlite, Name: fv.name, Pitch: fv.f0, Rate: 165 + 5*j})
	}
	for _, fv := range festivalVoices {
		vs = append(vs, Voice{ID: "festival:" + fv.name, Engine: EngineFestival, Name: fv.name, Rate: fv.rate})
	}
	return vs
}

// trainVariants are espeak-ng variants no evaluation voice uses: the
// train preset's timbres.
var trainVariants = []string{"adam", "Alex", "Alicia", "Andy", "Annie", "aunty", "belinda", "benjamin",
	"david", "edward", "john", "linda", "max", "paul", "robert", "steph"}

// TrainVoices are the train preset's voices: every English accent with
// each train variant, 128 espeak-ng voices, with pitch and rate spread
// wider than the inventory's. No voice of Inventory is among them, so a
// model trained on them is evaluated on voices it never heard.
func TrainVoices() []Voice {
	var vs []Voice
	i := 0
	for _, acc := range espeakAccents {
		for _, va := range trainVariants {
			pitch := 30 + (i*37)%41 // 30..70
			rate := 145 + (i*53)%51 // 145..195 wpm
			vs = append(vs, Voice{ID: fmt.Sprintf("espeak-ng:%s+%s", acc, va), Engine: EngineEspeak,
				Name: acc + "+" + va, Pitch: pitch, Rate: rate})
			i++
		}
	}
	return vs
}

// UnheardVoices are the unheard preset's voices: the inventory's flite
// and festival voices (7), engines the train preset never casts, so a
// model trained on the train preset hears none of their voices before
// it is evaluated on them. The preset's dev and test splits share them.
func UnheardVoices() []Voice {
	var vs []Voice
	for _, v := range Inventory() {
		if v.Engine != EngineEspeak {
			vs = append(vs, v)
		}
	}
	return vs
}

// VoicePool returns the voices of one split. Every fifth voice of the
// inventory is a dev voice, the rest are test voices, so the two pools are
// disjoint (MPTB §3.2) and both span accents, variants and engines.
func VoicePool(split dialogue.Split) []Voice { return VoicePoolOf(Inventory(), split) }

// VoicePoolOf returns the voices of one split of an inventory: every
// fifth voice, from the third, is a dev voice, the rest are test voices.
func VoicePoolOf(inventory []Voice, split dialogue.Split) []Voice {
	var out []Voice
	for i, v := range inventory {
		if (i%5 == 2) == (split == dialogue.Dev) {
			out = append(out, v)
		}
	}
	return out
}

// PoolNeed is how many voices each split's pool must hold for a preset:
// as many as the speakers of its largest conversation of that split.
func PoolNeed(p Preset) map[dialogue.Split]int {
	need := map[dialogue.Split]int{dialogue.Dev: 0, dialogue.Test: 0}
	for _, s := range p.Conversations {
		need[s.Split] = max(need[s.Split], s.Speakers)
	}
	return need
}

// SplitVoices divides a named inventory (a speech endpoint's voices) into
// disjoint dev and test pools that hold need voices each. VoicePoolOf's
// rule comes first, so an inventory that has always sufficed is split as
// it always was; when it leaves a pool short, the dev voices are
// need[dev] voices spread evenly over the inventory, the middle one of
// each of need[dev] equal parts, and the rest are test voices (the
// hosted API's 11 voices give tiny its 4 and 5). ok is false when the
// inventory has fewer voices than the two needs together.
func SplitVoices(inventory []Voice, need map[dialogue.Split]int) (pools map[dialogue.Split][]Voice, ok bool) {
	dev, test := VoicePoolOf(inventory, dialogue.Dev), VoicePoolOf(inventory, dialogue.Test)
	if len(dev) >= need[dialogue.Dev] && len(test) >= need[dialogue.Test] {
		return map[dialogue.Split][]Voice{dialogue.Dev: dev, dialogue.Test: test}, true
	}
	n, d := len(inventory), need[dialogue.Dev]
	if n < d+need[dialogue.Test] {
		return nil, false
	}
	isDev := map[int]bool{}
	for j := range d {
		isDev[(2*j+1)*n/(2*d)] = true
	}
	dev, test = nil, nil
	for i, v := range inventory {
		if isDev[i] {
			dev = append(dev, v)
		} else {
			test = append(test, v)
		}
	}
	return map[dialogue.Split][]Voice{dialogue.Dev: dev, dialogue.Test: test}, true
}

// Cast is who voices each speaker of one conversation.
type Cast struct {
	Voices []Voice   // index k-1 is speaker k
	Levels []float64 // active speech RMS per speaker, linear
}

// CastVoices draws distinct voices for the conversation's speakers from
// its split's pool, avoiding two speakers with the same espeak variant
// (same timbre in another accent) where the pool allows, and a speech
// level per speaker between -24 and -18 dBFS.
func CastVoices(spec ConversationSpec, rng *rand.Rand) Cast {
	if spec.Train {
		return CastFrom(spec, TrainVoices(), rng)
	}
	if spec.Unheard {
		return CastFrom(spec, UnheardVoices(), rng)
	}
	return CastFrom(spec, VoicePool(spec.Split), rng)
}

// CastFrom is CastVoices drawing from the given pool.
func CastFrom(spec ConversationSpec, pool []Voice, rng *rand.Rand) Cast {
	perm := rng.Perm(len(pool))
	var c Cast
	variants := map[string]bool{}
	taken := map[int]bool{}
	for pass := 0; pass < 2 && len(c.Voices) < spec.Speakers; pass++ {
		for _, i := range perm {
			if len(c.Voices) == spec.Speakers {
				break
			}
			v := pool[i]
			va := variantOf(v)
			if taken[i] || (pass == 0 && variants[va]) {
				continue
			}
			taken[i], variants[va] = true, true
			c.Voices = append(c.Voices, v)
		}
	}
	for range c.Voices {
		c.Levels = append(c.Levels, audio.FromDB(-24+6*rng.Float64()))
	}
	return c
}

func variantOf(v Voice) string {
	for i := len(v.Name) - 1; i >= 0; i-- {
		if v.Name[i] == '+' {
			return v.Name[i+1:]
		}
	}
	return v.Name
}
