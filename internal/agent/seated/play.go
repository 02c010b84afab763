package seated

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/harness"
	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/keys"
)

// SeatVersion is the version of how a seated session is played and
// recorded (Session, Play, the protocol clients, the recording): bump it
// with any change that changes a recording, so that a sweep plays its
// stored seats again.
//
// 4: the client plays the agent's audio, and a barge-in cuts it, from the
// start of the 20 ms slot it arrived in, not from its arrival; events keep
// the provider's wire names and an error's code and message (recording
// schema 2); a realtime barge-in sends no response.cancel the endpoint's
// turn detection makes needless.
const SeatVersion = 4

// PlayHash identifies how seats are played under o: SeatVersion and the
// tail.
func PlayHash(o Options) string {
	return keys.Agent(struct {
		Version int
		Tail    float64
	}{SeatVersion, o.Tail})
}

// Play sends input (whole frames) to the agent over sess, each frame at
// its slot on the session's clock, and returns what a listener heard from
// the agent, one frame per slot on the same timeline (as long as input),
// with the provider's events in the order they came. When either side
// fails, the other is stopped and the first failure is the error. The
// caller closes sess.
func Play(ctx context.Context, sess proto.Session, input []float32) ([]float32, []agent.ProviderEvent, error) {
	if len(input)%proto.FrameSamples != 0 {
		return nil, nil, fmt.Errorf("input of %d samples is not whole 20 ms frames", len(input))
	}
	l := listener{total: len(input) / proto.FrameSamples}
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return send(ctx, sess, input) })
	g.Go(func() error { return l.receive(ctx, sess) })
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	slices.SortStableFunc(l.events, func(a, b agent.ProviderEvent) int { return cmp.Compare(a.Time, b.Time) })
	return l.heard, l.events, nil
}

// send sends every frame of input at its slot, then confirms that the
// agent read them all.
func send(ctx context.Context, sess proto.Session, input []float32) error {
	for k := 0; k*proto.FrameSamples < len(input); k++ {
		if err := sess.Send(ctx, input[k*proto.FrameSamples:(k+1)*proto.FrameSamples]); err != nil {
			return fmt.Errorf("send frame %d: %w", k, err)
		}
	}
	return sess.Confirm(ctx)
}

// listener keeps what is heard of the agent, slot by slot, and its events.
type listener struct {
	total  int // frames to hear
	frames int // frames heard
	heard  []float32
	events []agent.ProviderEvent
}

// receive takes the agent's output until every slot of the input has been
// heard.
func (l *listener) receive(ctx context.Context, sess proto.Session) error {
	for l.frames < l.total {
		out, err := sess.Recv(ctx)
		if err != nil {
			return fmt.Errorf("receive: %w", err)
		}
		l.take(out)
	}
	return nil
}

// take files one output: a heard frame in its slot (a slot the session
// skipped was silent), or an event that came within the session.
func (l *listener) take(out proto.Output) {
	at := out.At.Seconds()
	if out.Event != nil {
		if at <= float64(l.total*proto.FrameSamples)/proto.SampleRate {
			l.events = append(l.events, harness.ProviderEvent(out.Event, at))
		}
		return
	}
	slot := int(out.At / proto.FrameDuration)
	if slot < l.frames || slot >= l.total {
		return
	}
	for ; l.frames < slot; l.frames++ {
		l.heard = append(l.heard, make([]float32, proto.FrameSamples)...)
	}
	l.heard = append(l.heard, out.Audio...)
	l.frames++
}
