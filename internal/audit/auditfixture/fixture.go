// Package auditfixture writes small generated-kind corpora whose speech is
// noise bursts exactly where the events say, for the tests of the corpus
// audit (internal/audit, cmd/floorbench, internal/bundle). Speaker 1 holds
// the floor in turns with one hold pause each; speaker 2 vocalises once
// inside each turn, alternately an INTERRUPTION and a
// NON_FLOOR_TAKING_INTERRUPTION, with the
// lengths a Design gives. Every byte is computed, so no corpus is committed.
package auditfixture

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/floor"
)

// Design is a fixture corpus.
type Design struct {
	Dev, Test int // conversations per split
	// Claims and Others are the lengths in seconds of speaker 2's
	// interruptions and backchannels, used in turn, one vocalisation per
	// turn of speaker 1.
	Claims, Others []float64
}

// Shortcut is a corpus a trivial rule solves: every interruption runs on
// for seconds, every backchannel stops after 0.3 s.
func Shortcut() Design {
	return Design{Dev: 4, Test: 8, Claims: []float64{3.5, 4.0, 4.5, 5.0}, Others: []float64{0.3}}
}

// Small is the smallest corpus with both splits: one dev and one test
// conversation, two channels each, one long claim and one backchannel per
// turn. Tests of file handling (integrity, limits, links) use it.
func Small() Design {
	return Design{Dev: 1, Test: 1, Claims: []float64{3.5}, Others: []float64{0.3}}
}

// BlindSpot is a corpus that only the span negative window lets a
// trivial rule solve: claims and backchannels alike last 0.5 s, so firing
// just after an overlapping run ends lands in every claim's window and
// after every backchannel's end, where span does not look and anchored
// does (docs/protocol.md#negative-window).
func BlindSpot() Design {
	return Design{Dev: 4, Test: 8, Claims: []float64{0.5}, Others: []float64{0.5}}
}

// Balanced is a corpus no trivial rule solves: claims and other
// vocalisations share one length distribution, and all of them outlast the
// matching window, so neither their length nor their end tells them apart.
func Balanced() Design {
	return Design{Dev: 4, Test: 8, Claims: []float64{3.5, 4.0, 4.5, 5.0}, Others: []float64{5.0, 4.5, 4.0, 3.5}}
}

const (
	turns    = 6
	turnLen  = 8.0 // seconds of speaker 1's turn
	gap      = 2.0 // silence between turns
	lead     = 1.0
	holdAt   = 3.0 // into the turn
	holdLen  = 0.6
	vocalAt  = 3.8 // into the turn, where speaker 2 starts
	speechDB = -20.0
	noiseDB  = -70.0
)

// Write writes the corpus into dir (created), seeded by seed.
func Write(dir string, d Design, seed uint64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	m := &corpus.Manifest{SchemaVersion: corpus.SchemaVersion, Kind: corpus.KindMPTB, Preset: "audit-fixture",
		Seed: seed, CodeVersion: "test", SampleRate: corpus.SampleRate}
	claim, other := 0, 0
	for i := range d.Dev + d.Test {
		split := "test"
		if i < d.Dev {
			split = "dev"
		}
		id := fmt.Sprintf("audit-%02d", i)
		var events []floor.Event
		for t := range turns {
			start := lead + float64(t)*(turnLen+gap)
			events = append(events, floor.Event{Kind: floor.Turn, Speaker: 1, Start: start, End: start + turnLen,
				Words: 20, Ending: floor.Yielded, FloorBefore: 0, FloorAfter: 0,
				Holds: []floor.Hold{{Start: start + holdAt, End: start + holdAt + holdLen}}})
			e := floor.Event{Speaker: 2, Start: start + vocalAt, FloorBefore: 1, FloorAfter: 1}
			if t%2 == 0 {
				length := d.Claims[claim%len(d.Claims)]
				claim++
				e.Kind, e.End, e.FloorAfter = floor.Interruption, e.Start+length, 2
			} else {
				length := d.Others[other%len(d.Others)]
				other++
				e.Kind, e.End = floor.NonFloorTakingInterruption, e.Start+length
			}
			e.Words = max(1, int(3*(e.End-e.Start)))
			events = append(events, e)
		}
		duration := lead + turns*(turnLen+gap)
		conv, err := writeConversation(dir, id, split, duration, events, seed+uint64(i))
		if err != nil {
			return err
		}
		m.Conversations = append(m.Conversations, conv)
	}
	data, err := m.Encode()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, corpus.ManifestName), data, 0o644)
}

func writeConversation(dir, id, split string, duration float64, events []floor.Event, seed uint64) (corpus.Conversation, error) {
	n := int(duration * audio.Rate)
	c := corpus.Conversation{ID: id, Split: split, InteractionType: "casual", Speakers: 2, Topic: "fixture",
		Voices: []string{"a", "b"}, SNR: []float64{50, 50}, Noise: []string{"white", "white"},
		Duration: float64(n) / audio.Rate, Samples: n, Files: map[string]string{}}
	folder := filepath.Join(dir, id)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return c, err
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	for k := 1; k <= 2; k++ {
		x := audio.WhiteNoise(rng, n)
		audio.Gain(x, audio.FromDB(noiseDB))
		for _, e := range events {
			if e.Speaker != k {
				continue
			}
			speak(x, e.Start, e.End, rng)
			for _, h := range e.Holds {
				silence(x, h.Start, h.End, rng)
			}
		}
		if err := audio.WriteWAV(filepath.Join(folder, corpus.ChannelName(k)), x, audio.Rate); err != nil {
			return c, err
		}
	}
	log := corpus.EventLog{SchemaVersion: corpus.SchemaVersion, ConversationID: id, Duration: c.Duration, Speakers: 2, Events: events}
	if err := writeJSON(filepath.Join(folder, corpus.EventsName), log); err != nil {
		return c, err
	}
	for _, name := range corpus.FileNames(2) {
		sum, err := digest.FileSHA256(filepath.Join(folder, name))
		if err != nil {
			return c, err
		}
		c.Files[name] = sum
	}
	return c, nil
}

// speak fills [start, end) with noise at speechDB.
func speak(x []float32, start, end float64, rng *rand.Rand) {
	fill(x, start, end, audio.FromDB(speechDB), rng)
}

// silence puts the noise floor back over [start, end).
func silence(x []float32, start, end float64, rng *rand.Rand) {
	fill(x, start, end, audio.FromDB(noiseDB), rng)
}

func fill(x []float32, start, end, gain float64, rng *rand.Rand) {
	a, b := int(start*audio.Rate), min(len(x), int(end*audio.Rate))
	if b <= a {
		return
	}
	burst := audio.WhiteNoise(rng, b-a)
	audio.Gain(burst, gain)
	copy(x[a:b], burst)
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
