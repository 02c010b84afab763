package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/proto"
)

// SessionDeadline bounds one session, a trial or a seat, in session time:
// the longest it can play and the endpoint's handshake timeout to open it.
//
// The handshake part is the endpoint's own HandshakeTimeout (0 means
// proto.DefaultHandshakeTimeout), not a fixed allowance: Dial waits that
// long for each step of the opening, so a smaller allowance would cut a
// handshake the endpoint still allows and record a slow agent as a
// failed one; and the part for playing is exact, not an estimate rounded
// to the second.
func SessionDeadline(length time.Duration, ep proto.Endpoint) time.Duration {
	return length + handshakeTimeout(ep)
}

func handshakeTimeout(ep proto.Endpoint) time.Duration {
	return cmp.Or(ep.HandshakeTimeout, proto.DefaultHandshakeTimeout)
}

// PlaySession is the one session runner of trials and seats, in a sweep's
// activities and on the command line alike: it opens a session with the
// agent at ep on a clock at ep's rate and runs play over it, all within
// SessionDeadline(length, ep), then closes it. A session ended by its
// deadline says so.
func PlaySession(ctx context.Context, ep proto.Endpoint, length time.Duration, play func(context.Context, proto.Session) error) error {
	clock, err := proto.NewClock(ep.Rate)
	if err != nil {
		return err
	}
	deadline := SessionDeadline(length, ep)
	sctx, cancel := clock.WithTimeout(ctx, deadline)
	defer cancel()
	err = dialAndPlay(sctx, ep, play)
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the session ran past its deadline of %v of session time (its length and %v to open it): %w", deadline, handshakeTimeout(ep), err)
	}
	return err
}

func dialAndPlay(ctx context.Context, ep proto.Endpoint, play func(context.Context, proto.Session) error) error {
	sess, err := proto.Dial(ctx, ep)
	if err != nil {
		return err
	}
	defer sess.Close()
	return play(ctx, sess)
}

// PlayTrial opens a session with the agent at ep and plays t over it
// (Play), within the trial's deadline; it does not retry.
func PlayTrial(ctx context.Context, ep proto.Endpoint, t Trial, o Options) (rec *agent.Recording, input, output []float32, err error) {
	err = PlaySession(ctx, ep, TrialLength(t.Scenario, o), func(ctx context.Context, sess proto.Session) (err error) {
		rec, input, output, err = Play(ctx, sess, t, o)
		return err
	})
	return rec, input, output, err
}

// TrialLength is the longest a trial of sc can last in session time: the
// tape or the wait for the agent's onset, then for a STOP trial the
// stimulus's delay and length and every window that can decide it, and
// the tail.
func TrialLength(sc *agent.Scenario, o Options) time.Duration {
	longest := max(sc.Duration, sc.Cue+o.OnsetWait)
	if sc.Stimulus != nil {
		longest += sc.Stimulus.Delay + sc.Stimulus.Duration() + o.Windows.Yield + o.Windows.StopSilence + o.Windows.BargeIn
		if sc.Stimulus.Kind == agent.Interruption {
			longest += o.Recovery
		}
	}
	return time.Duration((longest + o.Tail) * float64(time.Second))
}
