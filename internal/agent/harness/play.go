package harness

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/keys"
)

// TrialVersion is the version of how a trial is played and recorded
// (Play, the protocol clients, the recording): bump it with any change
// that changes a recording, so that a sweep plays its stored trials again.
//
// 4: the client plays the agent's audio, and a barge-in cuts it, from the
// start of the 20 ms slot it arrived in, not from its arrival; events keep
// the provider's wire names and an error's code and message (recording
// schema 2); a realtime barge-in sends no response.cancel the endpoint's
// turn detection makes needless.
// Also 4 (the same release): an interruption trial is recorded until the
// recovery window after the interrupter's turn has ended, so that
// recovery can be measured.
//
// 5: transcript events are recorded with their text (recording schema
// 3); the moshi client clips decoded audio to full scale, and the
// reference agent's moshi server holds its encoder's DC rejection, so a
// stop over moshi is no longer heard up to 50 ms late.
const TrialVersion = 5

// PlayHash identifies how trials are played under o: TrialVersion and
// every option that changes a recording. Clean acoustics leave the hash
// as it was before acoustic conditions existed, so clean recordings keep
// their keys; any condition gives other keys, so a recording made under
// one condition is never taken for another's.
func PlayHash(o Options) string {
	var ac *agent.Acoustics
	if !o.Acoustics.Clean() {
		ac = &o.Acoustics
	}
	return keys.Agent(struct {
		Version                   int
		VAD                       agent.VAD
		Windows                   agent.Windows
		OnsetWait, Tail, Recovery float64
		Acoustics                 *agent.Acoustics `json:",omitempty"`
	}{TrialVersion, o.VAD, o.Windows, o.OnsetWait, o.Tail, o.Recovery, ac})
}

// Options say how trials are played and named.
type Options struct {
	// Agent names the agent in recordings; Protocol and Model describe it.
	Agent, Protocol, Model string
	// VAD hears the agent's onset before a STOP stimulus, and Windows say
	// how long a trial is recorded after its stimulus. Both are the
	// scorer's, so that what a trial waits for is what is scored.
	VAD     agent.VAD
	Windows agent.Windows
	// OnsetWait is how long, after the end of a STOP trial's prompt, the
	// harness waits to hear the agent start before it gives up.
	OnsetWait float64
	// Tail is recorded after the last window that can decide a trial.
	Tail float64
	// Recovery is recorded after an interruption stimulus ends, for the
	// recovery measure (agent.MeasureParams.Recovery).
	Recovery float64
	// Acoustics degrade what the agent hears: noise at a stated SNR, its
	// own voice echoed back (docs/agents.md#acoustic-conditions).
	Acoustics agent.Acoustics
}

// Defaults of Options' waits, in seconds.
const (
	DefaultOnsetWait = 8.0
	DefaultTail      = 0.5
)

// DefaultOptions are the options with the scorer's defaults.
func DefaultOptions(agentName, protocol, model string) Options {
	return Options{Agent: agentName, Protocol: protocol, Model: model, VAD: agent.DefaultVAD(),
		Windows: agent.DefaultWindows(), OnsetWait: DefaultOnsetWait, Tail: DefaultTail, Recovery: agent.DefaultMeasureParams().Recovery}
}

// Trial is one scenario with its audio, played for the Repeat-th time.
type Trial struct {
	Scenario *agent.Scenario
	Audio    agent.ScenarioAudio
	Repeat   int
}

// frameSeconds is the length of one protocol frame.
const frameSeconds = float64(proto.FrameSamples) / proto.SampleRate

// framesFor is how many whole frames cover t seconds.
func framesFor(t float64) int { return int(math.Ceil(t/frameSeconds - 1e-9)) }

// Play plays trial t over sess and returns its recording with what was
// played (input) and what was heard (output), both on the trial clock.
// When either side fails, the other is stopped and the first failure is
// the error: the other side's, a cancelled context, is its consequence.
// The caller closes sess.
func Play(ctx context.Context, sess proto.Session, t Trial, o Options) (*agent.Recording, []float32, []float32, error) {
	sc := t.Scenario
	p := newPlayback(sc, t.Audio, o, t.Repeat)
	l := listener{vad: o.VAD.Stream(), onset: p.onset, cue: sc.Cue, echo: p.echo}
	var res sendResult
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		res = p.send(ctx, sess)
		return res.err
	})
	g.Go(func() error { return l.receive(ctx, sess, p.done) })
	if err := g.Wait(); err != nil {
		return nil, nil, nil, err
	}
	return p.recording(t, res, l)
}

// sendResult is how the sending side ended.
type sendResult struct {
	frames int // input frames sent
	err    error
}

// playback is the sending side of one trial: the tape, then for a STOP
// trial silence and, once the agent is heard, the stimulus.
type playback struct {
	sc    *agent.Scenario
	audio agent.ScenarioAudio
	o     Options
	input []float32
	// onset carries the agent's heard onset from the listener; done the
	// number of frames sent, once the sender has finished.
	onset      chan float64
	done       chan int
	heardOnset float64
	stimStart  int // frame; -1 before it is known
	// noise and echo: the acoustic conditions (nil when not asked for).
	noise *noiseSource
	echo  *echoPath
}

func newPlayback(sc *agent.Scenario, a agent.ScenarioAudio, o Options, repeat int) *playback {
	p := &playback{sc: sc, audio: a, o: o, onset: make(chan float64, 1), done: make(chan int, 1), heardOnset: -1, stimStart: -1}
	if ac := o.Acoustics; ac.SNR != nil {
		p.noise = newNoiseSource(sc.ID, repeat, agent.SpeechLevel(a.Mix)*math.Pow(10, -*ac.SNR/20))
	}
	if ac := o.Acoustics; ac.Echo != nil {
		p.echo = &echoPath{gain: math.Pow(10, *ac.Echo/20), delay: ac.EchoDelayMS * proto.SampleRate / 1000}
	}
	return p
}

// lastFrame is the number of frames the trial lasts, as far as is known
// before frame k is sent.
func (p *playback) lastFrame() int {
	tape := framesFor(p.sc.Duration)
	if !p.sc.Condition.Stop() {
		return tape
	}
	if p.stimStart < 0 {
		return max(tape, framesFor(p.sc.Cue+p.o.OnsetWait))
	}
	w := p.o.Windows
	stimFrames := framesFor(p.sc.Stimulus.Duration())
	after := framesFor(max(w.Yield+w.StopSilence, w.Yield+w.BargeIn) + p.o.Tail)
	if p.sc.Stimulus.Kind == agent.Interruption {
		after = max(after, stimFrames+framesFor(p.o.Recovery))
	}
	return max(tape, p.stimStart+max(stimFrames, after))
}

// send sends every frame of the trial at its slot, then confirms that
// the agent read them all.
func (p *playback) send(ctx context.Context, sess proto.Session) sendResult {
	k := 0
	defer func() { p.done <- k }()
	for ; k < p.lastFrame(); k++ {
		p.schedule(k)
		frame := p.frame(k)
		p.input = append(p.input, frame...)
		if err := sess.Send(ctx, frame); err != nil {
			return sendResult{frames: k, err: fmt.Errorf("send frame %d: %w", k, err)}
		}
	}
	return sendResult{frames: k, err: sess.Confirm(ctx)}
}

// schedule places the stimulus once the agent's onset is known: Delay
// after the onset, and never before frame k, the next one to be sent.
func (p *playback) schedule(k int) {
	if !p.sc.Condition.Stop() || p.stimStart >= 0 {
		return
	}
	select {
	case on := <-p.onset:
		p.heardOnset = on
		p.stimStart = max(k, framesFor(on+p.sc.Stimulus.Delay))
	default:
	}
}

// frame is input frame k: the tape, with the stimulus mixed in.
func (p *playback) frame(k int) []float32 {
	out := make([]float32, proto.FrameSamples)
	from := k * proto.FrameSamples
	if from < len(p.audio.Mix) {
		copy(out, p.audio.Mix[from:])
	}
	if p.stimStart >= 0 && k >= p.stimStart {
		off := (k - p.stimStart) * proto.FrameSamples
		for i := 0; i < len(out) && off+i < len(p.audio.Stimulus); i++ {
			out[i] += float32(p.sc.MixGain) * p.audio.Stimulus[off+i]
		}
	}
	if p.noise != nil {
		p.noise.add(out)
	}
	if p.echo != nil {
		p.echo.add(out, from)
	}
	return out
}

// recording assembles the trial's recording once both sides are done.
func (p *playback) recording(t Trial, res sendResult, l listener) (*agent.Recording, []float32, []float32, error) {
	sc := t.Scenario
	n := res.frames * proto.FrameSamples
	output := make([]float32, n)
	copy(output, l.heard)
	r := &agent.Recording{SchemaVersion: agent.RecordingSchemaVersion, ScenarioID: sc.ID, Condition: sc.Condition,
		Speakers: sc.Speakers, Repeat: t.Repeat, Agent: p.o.Agent, Protocol: p.o.Protocol, Model: p.o.Model,
		Cue: sc.Cue, Resume: sc.Resume, ValidUntil: sc.ValidUntil, Samples: n,
		Duration: float64(n) / proto.SampleRate, Events: l.events}
	if ac := p.o.Acoustics; !ac.Clean() {
		r.Acoustics = &ac
	}
	if sc.Stimulus != nil {
		st := &agent.PlayedStimulus{Kind: sc.Stimulus.Kind, Speaker: sc.Stimulus.Speaker, Delay: sc.Stimulus.Delay, Samples: sc.Stimulus.Samples}
		if p.heardOnset >= 0 {
			on := p.heardOnset
			st.Onset = &on
		}
		if p.stimStart >= 0 && p.stimStart < res.frames {
			start := float64(p.stimStart) * frameSeconds
			st.Start = &start
		}
		r.Stimulus = st
	}
	r.Events = within(l.events, r.Duration)
	return r, p.input[:n], output, nil
}

// within keeps the events that came before the trial's end (an agent may
// say something after the last frame was heard), in time order.
func within(events []agent.ProviderEvent, end float64) []agent.ProviderEvent {
	out := []agent.ProviderEvent{}
	for _, e := range events {
		if e.Time <= end {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b agent.ProviderEvent) int { return cmp.Compare(a.Time, b.Time) })
	return out
}

// listener is the receiving side of one trial: what was heard, the
// events, and the onset the sender waits for.
type listener struct {
	vad   *agent.VADStream
	onset chan<- float64
	// cue is the end of the prompt: the onset the sender waits for is that
	// of the speech the agent is making once the prompt is over, not of
	// anything it said earlier and stopped.
	cue    float64
	told   bool
	echo   *echoPath // nil without echo
	heard  []float32
	frames int
	events []agent.ProviderEvent
}

// receive takes the agent's output until every slot up to the last frame
// sent has been heard. It waits for the agent's output and for the sender's
// count at once: a continuous channel (duplex) sends nothing after its
// answer to the last input frame, so the count may come after the last
// output.
func (l *listener) receive(ctx context.Context, sess proto.Session, done <-chan int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	outs, errs := make(chan proto.Output), make(chan error, 1)
	go func() {
		for {
			out, err := sess.Recv(ctx)
			if err != nil {
				errs <- err
				return
			}
			select {
			case outs <- out:
			case <-ctx.Done():
				return
			}
		}
	}()
	total := -1
	for total < 0 || l.frames < total {
		select {
		case total = <-done:
			done = nil
		case out := <-outs:
			l.take(out)
		case err := <-errs:
			return fmt.Errorf("receive: %w", err)
		}
	}
	return nil
}

// take files one output: a heard frame in its slot, or an event.
func (l *listener) take(out proto.Output) {
	at := out.At.Seconds()
	if out.Event != nil {
		l.events = append(l.events, eventOf(out.Event, at))
		return
	}
	slot := int(out.At / proto.FrameDuration)
	if slot < l.frames {
		return
	}
	for ; l.frames < slot; l.frames++ { // a slot the session skipped was silent
		l.hear(make([]float32, proto.FrameSamples))
	}
	l.hear(out.Audio)
	l.frames++
}

func (l *listener) hear(frame []float32) {
	l.heard = append(l.heard, frame...)
	if l.echo != nil {
		l.echo.hear(frame)
	}
	l.vad.Push(frame)
	if l.told || l.vad.Heard() <= l.cue {
		return
	}
	if on, ok := l.vad.Speaking(); ok {
		l.told = true
		l.onset <- on
	}
}

// eventOf maps a session's event to the recording's kinds
// (docs/agents.md#recordings), keeping the provider's name for it and an
// error's code and message as the session scrubbed them.
func eventOf(e *proto.Event, at float64) agent.ProviderEvent {
	kind := string(e.Kind)
	switch e.Kind {
	case proto.BargeIn:
		kind = agent.EventInterrupted
	case proto.ResponseDone:
		if e.Status == "cancelled" || e.Status == "incomplete" || e.Status == "interrupted" {
			kind = agent.EventInterrupted
		}
	}
	return agent.ProviderEvent{Kind: kind, Time: at, Name: e.Name, Code: e.Code, Message: e.Message, Text: e.Text}
}
