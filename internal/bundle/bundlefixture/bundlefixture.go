// Package bundlefixture makes synthetic evaluations in memory for the tests
// and benchmarks of bundles and of the viewer: a corpus whose gold comes
// from seeded MPTB-style event logs (turns with holds, interruptions and
// backchannels), its error anatomy and attributes, and score tracks of
// systems that fire a set delay after each anchor and now and then on a
// negative span. Nothing is read from disk; the same design gives the same
// corpus and tracks.
package bundlefixture

import (
	"fmt"
	"math/rand/v2"

	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
)

// FrameRate is the frame rate of the score tracks: low, to keep set-up
// short; a bundle holds the same things at any rate.
const FrameRate = 10

// Design is a synthetic corpus and the systems scored on it.
type Design struct {
	Name, Hash, Kind string
	Seed             uint64
	Conversations    int
	// IDFormat makes conversation i's id with fmt.Sprintf.
	IDFormat string
	// DevEvery puts every DevEvery-th conversation (the first included)
	// in the dev split; 0 makes a corpus of test conversations only.
	DevEvery int
	// Seconds is each conversation's length; events fill all but the
	// last 10 s.
	Seconds float64
	// SpeakerCounts: conversation i has 2 + i%SpeakerCounts speakers.
	SpeakerCounts int
	// Types are the interaction types, in turn; SNRBands, when given, the
	// snr_band attribute, in turn.
	Types, SNRBands []string
	// Unlabelled counts conversations with audio but no labels.
	Unlabelled int
	Systems    []System
}

// System is how a synthetic system scores.
type System struct {
	Name string
	// Delay is how long after an anchor it fires; Jitter, when not 0,
	// adds up to that many seconds more, drawn per anchor.
	Delay, Jitter float64
	// Misses is the share of anchors it does not fire on (0: none, and no
	// draw).
	Misses float64
	// Noise: it fires on a negative span's start with probability
	// 1/Noise.
	Noise int
}

// Tracks are one system's score tracks per task on each split.
type Tracks struct {
	Dev, Test map[floor.Task]*score.ProbsFile
}

// Mini is a small generated-looking corpus (16 conversations of 60 s, a
// quarter dev) scored by an early system that fires on many holds and a
// late one.
func Mini() Design {
	return Design{Name: "mptb-mini", Hash: "c0ffee", Kind: "mptb", Seed: 5, Conversations: 16, IDFormat: "conv%02d", DevEvery: 4, Seconds: 60,
		SpeakerCounts: 3, Types: []string{"casual", "narrative"}, Systems: miniSystems()}
}

// RealMini is Mini's real-looking counterpart: test conversations only
// and two unlabelled, so its thresholds are transferred.
func RealMini() Design {
	return Design{Name: "real-mini", Hash: "bead", Kind: "ami", Seed: 7, Conversations: 16, IDFormat: "conv%02d", Seconds: 60,
		SpeakerCounts: 3, Types: []string{"casual", "narrative"}, Unlabelled: 2, Systems: miniSystems()}
}

func miniSystems() []System {
	return []System{{Name: "early", Delay: 0.2, Noise: 4}, {Name: "late", Delay: 2.5, Noise: 4}}
}

// FullMPTB is the size of a full MPTB sweep: 240 conversations of 120 s
// with 2-5 speakers (48 dev, 192 test) and five systems that fire at
// different delays and false-alarm rates.
func FullMPTB() Design {
	d := Design{Name: "mptb", Hash: "f00d", Kind: "mptb", Seed: 17, Conversations: 240, IDFormat: "mptb-%03d", DevEvery: 5, Seconds: 120,
		SpeakerCounts: 4, Types: []string{"casual", "narrative", "debate", "planning"}, SNRBands: []string{"20-25", "25-30", "30-35"}}
	for i, name := range []string{"rms", "webrtcvad", "silero", "rms-endpointer", "silero-endpointer"} {
		d.Systems = append(d.Systems, System{Name: name, Delay: []float64{0.1, 0.3, 0.6, 1.2, 2.0}[i], Jitter: 0.3, Misses: 0.2,
			Noise: []int{2, 3, 4, 6, 8}[i]})
	}
	return d
}

// Make builds the corpus of d and, by system name, its tracks.
func Make(d Design) (*evaluate.Corpus, map[string]Tracks) {
	rng := rand.New(rand.NewPCG(d.Seed, d.Seed))
	c := &evaluate.Corpus{Name: d.Name, Hash: d.Hash, Kind: d.Kind, Conversations: map[string]evaluate.Conversation{}, Unlabelled: d.Unlabelled,
		Dev: &floor.GoldSet{TauPre: 0.25, TauMax: 3}, Test: &floor.GoldSet{TauPre: 0.25, TauMax: 3}}
	tracks := map[string]Tracks{}
	for _, s := range d.Systems {
		tr := Tracks{Dev: map[floor.Task]*score.ProbsFile{}, Test: map[floor.Task]*score.ProbsFile{}}
		for _, task := range floor.Tasks {
			tr.Dev[task] = &score.ProbsFile{Task: task, FrameRate: FrameRate}
			tr.Test[task] = &score.ProbsFile{Task: task, FrameRate: FrameRate}
		}
		tracks[s.Name] = tr
	}
	frames := int(d.Seconds * FrameRate)
	var transfers []floor.Transfer
	for i := range d.Conversations {
		id := fmt.Sprintf(d.IDFormat, i)
		dev := d.DevEvery > 0 && i%d.DevEvery == 0
		speakers := 2 + i%d.SpeakerCounts
		events := eventLog(rng, speakers, d.Seconds-10)
		transfers = append(transfers, floor.Transfers(floor.EventFloorSegments(events))...)
		g := floor.DeriveMPTB(id, d.Seconds, events, floor.DefaultInterruptedGuard)
		a := floor.MPTBAnatomy(&g, events)
		conv := evaluate.Conversation{ID: id, Split: "test", Anatomy: &a,
			Attributes: map[string]string{"speakers": fmt.Sprint(speakers), "type": d.Types[i%len(d.Types)]}}
		if len(d.SNRBands) > 0 {
			conv.Attributes["snr_band"] = d.SNRBands[i%len(d.SNRBands)]
		}
		gold := c.Test
		if dev {
			conv.Split, gold = "dev", c.Dev
		}
		c.Conversations[id] = conv
		gold.Conversations = append(gold.Conversations, g)
		for _, s := range d.Systems {
			split := tracks[s.Name].Test
			if dev {
				split = tracks[s.Name].Dev
			}
			for _, task := range floor.Tasks {
				split[task].Conversations = append(split[task].Conversations, s.scores(rng, id, speakers, frames, g.Task(task)))
			}
		}
	}
	c.Timing = floor.NewTiming(transfers)
	return c, tracks
}

// eventLog is a conversation's events until about end: turns of 2 s (a
// third with a hold pause), each followed by the next speaker's
// interruption or backchannel.
func eventLog(rng *rand.Rand, speakers int, end float64) []floor.Event {
	var events []floor.Event
	for t := 2.0; t < end; t += 5 + rng.Float64()*3 {
		sp := 1 + rng.IntN(speakers)
		turn := floor.Event{Kind: floor.Turn, Speaker: sp, Start: t - 2, End: t, Ending: floor.Yielded, Words: 6}
		if rng.IntN(3) == 0 {
			turn.Holds = []floor.Hold{{Start: t - 1.2, End: t - 0.8, AfterQuestion: rng.IntN(2) == 0}}
		}
		events = append(events, turn)
		other := 1 + (sp % speakers)
		if rng.IntN(2) == 0 {
			events = append(events, floor.Event{Kind: floor.Interruption, Speaker: other, Start: t + 1, End: t + 2, Words: 1 + rng.IntN(12)})
		} else {
			events = append(events, floor.Event{Kind: floor.Backchannel, Speaker: other, Start: t + 1, End: t + 1.4, Words: 1})
		}
	}
	return events
}

// scores is the system's track of one conversation and task: a peak
// after each anchor it does not miss, and one at the start of some
// negative spans.
func (s System) scores(rng *rand.Rand, id string, speakers, frames int, g *floor.TaskGold) score.ConversationProbs {
	cp := score.ConversationProbs{ID: id}
	for range speakers {
		cp.Speakers = append(cp.Speakers, make([]float64, frames))
	}
	for _, a := range g.Positives {
		at := a.Time + s.Delay
		if s.Jitter > 0 {
			at += s.Jitter * rng.Float64()
		}
		if s.Misses > 0 && rng.Float64() < s.Misses {
			continue
		}
		if f := int(at * FrameRate); f < frames {
			cp.Speakers[a.Speaker-1][f] = 0.5 + 0.5*rng.Float64()
		}
	}
	for _, n := range g.Negatives {
		if rng.IntN(s.Noise) == 0 {
			cp.Speakers[n.Speaker-1][int(n.Start*FrameRate)] = rng.Float64()
		}
	}
	return cp
}
