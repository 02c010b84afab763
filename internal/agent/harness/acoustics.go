package harness

import (
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"sync"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/audio"
)

// noiseSource adds pink noise at a fixed RMS to the frames sent, drawn
// from a stream seeded by the scenario and the repeat, so that a trial's
// noise is the same whenever it is played (its length follows the
// trial's: it is made one second at a time).
type noiseSource struct {
	rng   *rand.Rand
	rms   float64
	chunk []float32
	at    int
}

func newNoiseSource(scenario string, repeat int, rms float64) *noiseSource {
	h := fnv.New64a()
	h.Write([]byte("harness-noise\x00" + scenario + "\x00" + strconv.Itoa(repeat)))
	s := h.Sum64()
	return &noiseSource{rng: rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15)), rms: rms}
}

// add adds the next len(frame) samples of noise to frame.
func (n *noiseSource) add(frame []float32) {
	for i := range frame {
		if n.at == len(n.chunk) {
			n.chunk, n.at = audio.PinkNoise(n.rng, proto.SampleRate), 0
		}
		frame[i] += float32(n.rms * float64(n.chunk[n.at]))
		n.at++
	}
}

// echoPath feeds what a listener heard from the agent back into its
// input, delay samples later and scaled by gain: a speakerphone without
// echo cancellation. The listener files each heard frame; the sender
// reads what has been heard by the time it sends a frame (output not yet
// arrived is echoed as silence, as a real room would not have it yet).
type echoPath struct {
	gain  float64
	delay int
	mu    sync.Mutex
	heard []float32
}

func (e *echoPath) hear(frame []float32) {
	e.mu.Lock()
	e.heard = append(e.heard, frame...)
	e.mu.Unlock()
}

// add adds the echo to the input frame starting at sample from.
func (e *echoPath) add(frame []float32, from int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range frame {
		if j := from + i - e.delay; j >= 0 && j < len(e.heard) {
			frame[i] += float32(e.gain * float64(e.heard[j]))
		}
	}
}
