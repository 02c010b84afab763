package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/limits"
)

// Sessions say how one agent's sessions are opened and run, a set's
// trials (RunOptions) and a corpus's seats (seated.Options) alike, and
// Check checks them once for both.
type Sessions struct {
	Endpoint proto.Endpoint
	// Concurrency bounds the sessions open at once: the endpoint's own
	// limit.
	Concurrency int
	// Retries is how often a failed session is tried again.
	Retries int
	// Backoff is the wait before the first retry, doubled before each
	// next one (wall time).
	Backoff time.Duration
	// Progress, if set, is called after each session.
	Progress func(done, total int)
}

// Check refuses sessions a run cannot open, naming the setting: the
// endpoint's by proto.Endpoint.Check, the bounds of limits here.
func (s Sessions) Check() error {
	switch {
	case s.Concurrency < 1 || s.Concurrency > limits.MaxAgentSessions:
		return fmt.Errorf("concurrency %d (want 1 to %d)", s.Concurrency, limits.MaxAgentSessions)
	case s.Retries < 0 || s.Retries > limits.MaxSessionRetries:
		return fmt.Errorf("retries %d (want 0 to %d)", s.Retries, limits.MaxSessionRetries)
	}
	return s.Endpoint.Check()
}

// Rate is the endpoint's playback rate, 0 read as 1 (real time).
func (s Sessions) Rate() float64 {
	if s.Endpoint.Rate == 0 {
		return 1
	}
	return s.Endpoint.Rate
}

// RunOptions say how a set is played to one agent: each trial
// (Options), the sessions (Sessions), and how often.
type RunOptions struct {
	Options
	Sessions
	// Repeats is how often each scenario is played (MPTB: 3).
	Repeats int
}

// Summary counts what a run did.
type Summary struct {
	Played, Resumed, Failed int
	// first is the error of the first failed trial in set order, first
	// its place there.
	first      string
	firstIndex int
}

// ErrEveryTrialFailed is wrapped by Summary.Err: a run that left nothing
// to score, as `agent seat` ends with an error when a session failed.
var ErrEveryTrialFailed = errors.New("every trial failed")

// Err is an error wrapping ErrEveryTrialFailed, quoting the first failed
// trial's error, when the run failed every trial it played and had none
// recorded already; nil otherwise.
func (s Summary) Err() error {
	if s.Failed == 0 || s.Played+s.Resumed > 0 {
		return nil
	}
	return fmt.Errorf("%w (%d trials; the first: %s)", ErrEveryTrialFailed, s.Failed, s.first)
}

// Run plays every scenario of set (read from setDir) Repeats times to the
// agent at ro.Endpoint and writes each trial's recording into out, one
// folder per trial (agent.TrialName). Trials already recorded there are
// kept; trials that fail after every retry are recorded with their error.
// Only a cancelled ctx or a recording that cannot be written ends Run
// early.
func Run(ctx context.Context, setDir string, set *agent.Set, ro RunOptions, out string) (Summary, error) {
	if err := ro.Check(); err != nil {
		return Summary{}, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return Summary{}, err
	}
	var (
		mu   sync.Mutex
		sum  Summary
		done int
	)
	total := len(set.Scenarios) * ro.Repeats
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(ro.Concurrency)
	for i := range set.Scenarios {
		sc := &set.Scenarios[i]
		for rep := range ro.Repeats {
			g.Go(func() error {
				res, msg, err := runTrial(ctx, setDir, sc, rep, ro, out)
				mu.Lock()
				defer mu.Unlock()
				switch res {
				case played:
					sum.Played++
				case resumed:
					sum.Resumed++
				case failed:
					sum.Failed++
					if at := i*ro.Repeats + rep; sum.first == "" || at < sum.firstIndex {
						sum.first, sum.firstIndex = msg, at
					}
				}
				done++
				if ro.Progress != nil {
					ro.Progress(done, total)
				}
				return err
			})
		}
	}
	err := g.Wait()
	return sum, err
}

// Check refuses options Run cannot work with, naming the setting: the
// sessions' by Sessions.Check, the trials' and the run's here.
func (ro RunOptions) Check() error {
	switch {
	case ro.Repeats < 1 || ro.Repeats > limits.MaxAgentRepeats:
		return fmt.Errorf("repeats %d (want 1 to %d)", ro.Repeats, limits.MaxAgentRepeats)
	case !(ro.OnsetWait > 0 && ro.OnsetWait <= limits.MaxOnsetWaitS):
		return fmt.Errorf("onset wait %g s (want in (0, %g])", ro.OnsetWait, limits.MaxOnsetWaitS)
	case !(ro.Recovery >= 0 && ro.Recovery <= 60):
		return fmt.Errorf("recovery %g s (want 0 to 60)", ro.Recovery)
	}
	if err := ro.Sessions.Check(); err != nil {
		return err
	}
	if err := ro.VAD.Validate(); err != nil {
		return err
	}
	if err := ro.Acoustics.Validate(); err != nil {
		return fmt.Errorf("acoustics %w", err)
	}
	return ro.Windows.Validate()
}

// outcome is what became of one trial.
type outcome int

const (
	played outcome = iota
	resumed
	failed
)

// runTrial plays one trial unless it is recorded already, retrying failed
// sessions, and writes its recording; a failed trial's recorded error is
// msg.
func runTrial(ctx context.Context, setDir string, sc *agent.Scenario, rep int, ro RunOptions, out string) (_ outcome, msg string, _ error) {
	name := agent.TrialName(ro.Agent, sc.ID, rep)
	if r, err := agent.ReadRecording(filepath.Join(out, name)); err == nil && r.Error == "" {
		return resumed, "", nil
	}
	a, err := agent.LoadAudio(setDir, sc)
	if err != nil {
		return failed, "", err
	}
	t := Trial{Scenario: sc, Audio: a, Repeat: rep}
	var rec *agent.Recording
	var in, heard []float32
	lastErr := agent.Retry(ctx, ro.Retries+1, ro.Backoff, nil, func() (err error) {
		rec, in, heard, err = PlayTrial(ctx, ro.Endpoint, t, ro.Options)
		return err
	})
	if lastErr == nil {
		return played, "", agent.WriteRecording(out, name, rec, in, heard)
	}
	if ctx.Err() != nil {
		return failed, "", ctx.Err()
	}
	rec = FailedRecording(sc, rep, ro.Options, fmt.Sprintf("after %d tries: %v", ro.Retries+1, lastErr))
	return failed, rec.Error, agent.WriteRecording(out, name, rec, nil, nil)
}

// FailedRecording is the recording of a trial of sc that could not be
// played under o (agent.FailedRecording), with the acoustics it was to be
// played under, so that its error is counted under them.
func FailedRecording(sc *agent.Scenario, repeat int, o Options, msg string) *agent.Recording {
	r := agent.FailedRecording(sc, repeat, o.Agent, o.Protocol, o.Model, msg)
	if ac := o.Acoustics; !ac.Clean() {
		r.Acoustics = &ac
	}
	return r
}

// Estimate is how long Run takes at most on the wall, the trials spread
// evenly over the concurrency: each trial's longest length (TrialLength)
// at the endpoint's playback rate.
func Estimate(set *agent.Set, ro RunOptions) time.Duration {
	var total time.Duration
	for i := range set.Scenarios {
		total += TrialLength(&set.Scenarios[i], ro.Options)
	}
	perLane := float64(total) * float64(ro.Repeats) / float64(max(ro.Concurrency, 1)) / ro.Rate()
	return time.Duration(perLane).Round(time.Second)
}

// Preflight opens one session and closes it, so that an endpoint that
// refuses, or a credential it rejects, is one error before any trial.
func Preflight(ctx context.Context, ep proto.Endpoint) error {
	sess, err := proto.Dial(ctx, ep)
	if err != nil {
		return err
	}
	return sess.Close()
}
