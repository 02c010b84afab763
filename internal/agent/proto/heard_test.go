package proto

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/testenv"
)

// listening is an agent that keeps what it hears and says when it has
// heard a number of frames.
type listening struct {
	mu    sync.Mutex
	heard []float32
	want  int
	full  chan struct{}
}

func (a *listening) Hear(in, _ []float32) (Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.heard = append(a.heard, in...)
	if len(a.heard) == a.want*FrameSamples {
		close(a.full)
	}
	return Decision{}, nil
}

// TestHeardInputIsWhatTheAgentHears sends noisy input, loud enough to
// clip, over both protocols to a real server and compares what its agent
// heard with HeardInput bit for bit. Over both, the agent hears every frame
// sent with no frame after it: realtime's priming completes frame k from
// its own append.
func TestHeardInputIsWhatTheAgentHears(t *testing.T) {
	const frames = 40
	rng := rand.New(rand.NewPCG(1, 2))
	input := make([]float32, frames*FrameSamples)
	for i := range input {
		input[i] = float32(1.2 * math.Sin(float64(i)/7) * rng.Float64())
	}
	for _, protocol := range Protocols() {
		t.Run(protocol, func(t *testing.T) {
			testenv.Synctest(t, func(t *testing.T) {
				want, err := HeardInput(protocol, input)
				if err != nil {
					t.Fatal(err)
				}
				wantFrames := frames
				if protocol == MoshiName {
					// The last frame waits for the lookahead the next packet brings.
					wantFrames--
				}
				if len(want) != wantFrames*FrameSamples {
					t.Fatalf("HeardInput gives %d samples, want %d frames", len(want), wantFrames)
				}
				a := &listening{want: wantFrames, full: make(chan struct{})}
				ep := servePipe(t, protocol, func() (Agent, error) { return a, nil })
				run(t, dialPipe(t, ep), frames, func(k int) []float32 { return input[k*FrameSamples : (k+1)*FrameSamples] }, nil)
				select {
				case <-a.full:
				case <-time.After(time.Minute):
					t.Fatal("the agent did not hear every frame within a minute")
				}
				a.mu.Lock()
				defer a.mu.Unlock()
				if !slices.Equal(a.heard, want) {
					t.Fatalf("the agent heard %d samples that differ from HeardInput's", len(a.heard))
				}
			})
		})
	}
}

func TestHeardInputRefusesPartialFrames(t *testing.T) {
	if _, err := HeardInput(DuplexName, make([]float32, FrameSamples+1)); err == nil {
		t.Fatal("no error for a partial frame")
	}
	if _, err := HeardInput("sip", nil); err == nil {
		t.Fatal("no error for an unknown protocol")
	}
}
