package refagent

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/synth"
	"github.com/floorbench/floorbench/internal/testenv"
)

// espeak is espeak-ng, or the test is skipped (failed under
// FLOORBENCH_REQUIRE_TOOLS=1).
func espeak(t *testing.T) synth.TTS {
	t.Helper()
	return &synth.ProgramTTS{Engine: synth.EngineEspeak, Program: testenv.Program(t, "espeak-ng", "speech")}
}

// userVoice is the voice of the tests' user, unlike the agent's.
var userVoice = synth.Voice{ID: "espeak-ng:en-gb+f3", Engine: synth.EngineEspeak, Name: "en-gb+f3", Pitch: 60, Rate: 175}

// say speaks text in the user's voice, on the PCM16 grid the protocols
// carry, so that what the agent hears is exactly the tape.
func say(t *testing.T, tts synth.TTS, text string) []float32 {
	t.Helper()
	x, err := tts.Synthesize(context.Background(), text, userVoice)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range x {
		x[i] = float32(math.Round(float64(v)*32768)) / 32768
	}
	return x
}

// testLead is how far ahead the tests' realtime servers send audio: long
// enough that the client holds audio that a barge-in must drop; shorter
// than the agent's utterances, so a stopped one is cancelled before it is
// all sent.
const testLead = 3 * time.Second

// serve starts the reference agent over protocol on a proto.Pipe until
// the test ends and returns the endpoint that dials it, at real time.
func serve(t *testing.T, ref *Reference, protocol string) proto.Endpoint {
	t.Helper()
	h, err := ref.Handler(protocol, proto.ServerOptions{RealtimeLead: testLead})
	if err != nil {
		t.Fatal(err)
	}
	ep, stop := proto.ServePipe(h, protocol)
	t.Cleanup(stop)
	return ep
}

// trial is what one session sent and received.
type trial struct {
	tape   []float32 // the input sent
	heard  []float32 // what a listener heard from the agent
	events []proto.Event
}

// kinds counts the trial's events of kind.
func (tr trial) count(kind proto.EventKind) int {
	n := 0
	for _, e := range tr.events {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// agentTimes lists the agent's time stamps of the events of kind.
func (tr trial) agentTimes(kind proto.EventKind) []int64 {
	var out []int64
	for _, e := range tr.events {
		if e.Kind == kind {
			out = append(out, e.AgentMs)
		}
	}
	return out
}

// next gives the frame to send after k frames, knowing what the session
// has heard and seen so far; it returns nil to end the session.
type next func(k int, tr *trial) []float32

// drive runs one session with ref over protocol: frames from next, every
// output recorded, then Close. The session runs in real time on the fake
// clock of a testing/synctest bubble, so what it hears and when does not
// depend on the machine's load.
func drive(t *testing.T, ref *Reference, protocol string, nx next) trial {
	t.Helper()
	var tr trial
	testenv.Synctest(t, func(t *testing.T) { tr = driveInBubble(t, serve(t, ref, protocol), nx) })
	if t.Failed() {
		t.FailNow()
	}
	return tr
}

func driveInBubble(t *testing.T, ep proto.Endpoint, nx next) trial {
	t.Helper()
	ctx := t.Context()
	s, err := proto.Dial(ctx, ep)
	if err != nil {
		t.Fatal(err)
	}
	var tr trial
	var mu sync.Mutex
	done := make(chan error, 1)
	go func() {
		for {
			o, err := s.Recv(ctx)
			if err != nil {
				done <- err
				return
			}
			mu.Lock()
			if o.Event != nil {
				tr.events = append(tr.events, *o.Event)
			} else {
				tr.heard = append(tr.heard, o.Audio...)
			}
			mu.Unlock()
		}
	}()
	for k := 0; ; k++ {
		mu.Lock()
		x := nx(k, &tr)
		mu.Unlock()
		if x == nil {
			break
		}
		if err := s.Send(ctx, x); err != nil {
			t.Fatalf("frame %d: %v", k, err)
		}
		tr.tape = append(tr.tape, x...)
	}
	s.Close()
	if err := <-done; !errors.Is(err, proto.ErrClosed) {
		t.Fatalf("the session ended with %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	return tr
}

// frameOf is frame k of x, silence before its start and past its end.
func frameOf(x []float32, k int) []float32 {
	f := make([]float32, proto.FrameSamples)
	if k >= 0 && k*proto.FrameSamples < len(x) {
		copy(f, x[k*proto.FrameSamples:])
	}
	return f
}

// loudFrames counts the frames of x louder than -50 dBFS: the agent's
// speech (its audio has no noise).
func loudFrames(x []float32) []bool {
	var out []bool
	for k := 0; (k+1)*proto.FrameSamples <= len(x); k++ {
		out = append(out, levelDB(x[k*proto.FrameSamples:(k+1)*proto.FrameSamples]) > -50)
	}
	return out
}

// firstRun is the agent's first speech run in frames: from its first loud
// frame to the last loud frame before a second of silence.
func firstRun(x []float32) int {
	loud := loudFrames(x)
	first, last := -1, -1
	for k, l := range loud {
		switch {
		case !l:
		case first < 0:
			first, last = k, k
		case k-last > 50:
			return last - first + 1
		default:
			last = k
		}
	}
	if first < 0 {
		return 0
	}
	return last - first + 1
}

// tail is how long a trial goes on after its last line and after the
// agent's first response has ended, and how long what is heard from the
// agent must then have been silent: a realtime server ends its response
// up to testLead before the client has played it, and a loaded machine
// delays playback further, so a fixed wait after response_done could cut
// off audio still to be heard.
const tail = 150

// quiet reports whether the last n frames heard from the agent are
// silent (and n frames have been heard).
func quiet(tr *trial, n int) bool {
	frames := len(tr.heard) / proto.FrameSamples
	if frames < n {
		return false
	}
	return !slices.Contains(loudFrames(tr.heard[(frames-n)*proto.FrameSamples:frames*proto.FrameSamples]), true)
}

// maxFrames ends a trial whose agent never answers (the test then says
// so): 60 s.
const maxFrames = 3000

// responded is the frame count at which tr saw the agent's first
// response end, or -1.
func responded(tr *trial, k int) int {
	for _, e := range tr.events {
		if e.Kind == proto.ResponseDone {
			return k
		}
	}
	return -1
}

// talkOver is the talk-over trial: the user says a from 0.2 s; once the
// listener has heard the agent for half a second, the user says b over
// it; the session ends tail frames after b and after the agent's first
// response has ended, once it has been heard silent as long.
func talkOver(a, b []float32) next {
	bAt, doneAt := -1, -1
	return func(k int, tr *trial) []float32 {
		const aAt = 10
		talked := 0
		for _, l := range loudFrames(tr.heard) {
			if l {
				talked++
			}
		}
		if doneAt < 0 {
			doneAt = responded(tr, k)
		}
		switch {
		case k > maxFrames:
			return nil
		case bAt < 0 && talked >= 25:
			bAt = k
		case bAt >= 0 && doneAt >= 0 && k >= max(bAt+len(b)/proto.FrameSamples, doneAt)+tail && quiet(tr, tail):
			return nil
		}
		if bAt >= 0 && k >= bAt {
			return frameOf(b, k-bAt)
		}
		return frameOf(a, k-aAt)
	}
}

// tapeOf replays a recorded tape, then silence until tail frames after
// the agent's first response has ended and it has been heard silent as
// long.
func tapeOf(tape []float32) next {
	doneAt := -1
	return func(k int, tr *trial) []float32 {
		if doneAt < 0 {
			doneAt = responded(tr, k)
		}
		n := len(tape) / proto.FrameSamples
		if k > maxFrames || (k >= n && doneAt >= 0 && k >= doneAt+tail && quiet(tr, tail)) {
			return nil
		}
		return frameOf(tape, k)
	}
}
