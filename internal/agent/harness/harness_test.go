package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/agent/refagent"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/synth"
	"github.com/floorbench/floorbench/internal/testenv"
)

var (
	setOnce sync.Once
	setDir  string
	set     *agent.Set
	setErr  error
)

// tinyAgentSet generates the tiny-agent set once with the real TTS
// engines, skipping without them (failing under FLOORBENCH_REQUIRE_TOOLS).
func tinyAgentSet(t *testing.T) (string, *agent.Set) {
	t.Helper()
	engines, err := synth.NewTTS(t.TempDir())
	if err != nil {
		if testenv.Required() {
			t.Fatal(err)
		}
		t.Skipf("%v; skipping", err)
	}
	setOnce.Do(func() {
		root, err := os.MkdirTemp("", "floorbench-harness-test-")
		if err != nil {
			setErr = err
			return
		}
		setDir = filepath.Join(root, "tiny-agent")
		set, setErr = agent.Generate(context.Background(), agent.GenerateOptions{Preset: "tiny-agent", Seed: 3, Out: setDir, Jobs: 2, Engines: engines})
	})
	if setErr != nil {
		t.Fatal(setErr)
	}
	return setDir, set
}

// pipeURL is the URL of the agents these tests serve over a proto.Pipe.
const pipeURL = proto.PipeURL

// pipeLatency is the one-way delay of the tests' pipes: a network's, as
// between the processes on one machine the agent's events came 1.4 to
// 2.7 ms after their slots. Under it the protocols must still agree to
// the frame.
const pipeLatency = 2 * time.Millisecond

// servePipe serves h over an in-memory pipe delayed by pipeLatency and
// returns the endpoint of protocol that dials it, at real time. Inside a
// testing/synctest bubble the trials then play on the bubble's fake
// clock: the same decisions and latencies at any load, in no wall time.
func servePipe(t *testing.T, h http.Handler, protocol string) proto.Endpoint {
	t.Helper()
	p := proto.NewPipe()
	p.Latency = pipeLatency
	ep, stop := p.Serve(h, protocol)
	t.Cleanup(stop)
	return ep
}

// serveReference starts the reference agent with policy over protocol and
// returns its endpoint.
func serveReference(t *testing.T, policy, protocol string) proto.Endpoint {
	t.Helper()
	return serveConfig(t, refagent.DefaultConfig(policy), protocol)
}

// serveConfig starts the reference agent with cfg over protocol and
// returns its endpoint.
func serveConfig(t *testing.T, cfg refagent.Config, protocol string) proto.Endpoint {
	t.Helper()
	tts, err := refagent.EspeakTTS()
	if err != nil {
		t.Skip(err)
	}
	ref, err := refagent.New(context.Background(), cfg, tts)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ref.Handler(protocol, proto.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return servePipe(t, h, protocol)
}

// runOn plays set s, whose audio is in dir, to the reference agent with
// cfg under acoustics ac, and decides every trial, two at once on the
// fake clock of a synctest bubble.
func runOn(t *testing.T, dir string, s *agent.Set, cfg refagent.Config, policy, protocol string, ac agent.Acoustics) map[string]agent.Trial {
	t.Helper()
	out := t.TempDir()
	testenv.Synctest(t, func(t *testing.T) {
		ro := RunOptions{Options: DefaultOptions(policy, protocol, ""), Repeats: 1,
			Sessions: Sessions{Concurrency: 2, Retries: 1, Backoff: 10 * time.Millisecond, Endpoint: serveConfig(t, cfg, protocol)}}
		ro.Acoustics = ac
		start := time.Now()
		sum, err := Run(t.Context(), dir, s, ro, out)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Played != len(s.Scenarios) || sum.Failed != 0 {
			t.Fatalf("%s over %s: %+v for %d scenarios; failed: %v", policy, protocol, sum, len(s.Scenarios), failures(t, out))
		}
		// Played one at a time the trials would take at least the sum of
		// their lengths, on the bubble's clock as on the wall.
		var played time.Duration
		for _, sc := range s.Scenarios {
			played += time.Duration(sc.Duration * float64(time.Second))
		}
		if took := time.Since(start); took >= played {
			t.Errorf("%s over %s: %d trials at concurrency %d took %v, the sum of their lengths %v: they did not overlap",
				policy, protocol, len(s.Scenarios), ro.Concurrency, took, played)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	checkEventNames(t, out, protocol)
	trials, err := agent.ReadTrials(out, agent.DefaultScoreParams(), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]agent.Trial{}
	for _, tr := range trials {
		// Under acoustics an agent may stop before the stimulus
		// (not-talking): that is what they measure.
		if tr.Decision.Outcome != agent.Decided && ac.Clean() {
			t.Errorf("%s over %s: %s %s: outcome %s", policy, protocol, tr.ScenarioID, tr.Condition, tr.Decision.Outcome)
		}
		byID[tr.ScenarioID] = tr
	}
	return byID
}

// wireNames are the names each protocol's server gives the events a
// session reports, as they are on the wire; "" is an event the client
// made itself (realtime's barge-in).
var wireNames = map[string][]string{
	proto.DuplexName: {"speech_started", "speech_stopped", "response_started", "response_done"},
	proto.RealtimeName: {"input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped", "response.created", "response.done",
		"response.audio_transcript.delta", "response.audio_transcript.done", ""},
	proto.GeminiLiveName: {"serverContent.modelTurn", "serverContent.interrupted", "serverContent.turnComplete", "serverContent.outputTranscription"},
	proto.MoshiName:      {"text"},
}

// checkEventNames reads every recording in out and fails on an error
// event or an event whose name is not one of protocol's wire names; a
// transcript holds the words of one of the agent's utterances, and every
// protocol but duplex records some.
func checkEventNames(t *testing.T, out, protocol string) {
	t.Helper()
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	transcripts := 0
	defer func() {
		if (transcripts > 0) != (protocol != proto.DuplexName) {
			t.Errorf("%d transcript events recorded over %s", transcripts, protocol)
		}
	}()
	for _, e := range entries {
		r, err := agent.ReadRecording(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range r.Events {
			if ev.Kind == "error" {
				t.Errorf("%s over %s: an error event at %.3f s: %s: %s", r.ScenarioID, protocol, ev.Time, ev.Code, ev.Message)
			}
			if ev.Kind == string(proto.Transcript) {
				transcripts++
				if !slices.Contains(refagent.Utterances, ev.Text) && ev.Text != refagent.ShortUtterance {
					t.Errorf("%s over %s: a transcript %q, not one of the agent's utterances", r.ScenarioID, protocol, ev.Text)
				}
			}
			if !slices.Contains(wireNames[protocol], ev.Name) {
				t.Errorf("%s over %s: a %s event named %q, not one of the provider's names %q", r.ScenarioID, protocol, ev.Kind, ev.Name, wireNames[protocol])
			}
		}
	}
}

// knownAnswer is whether the reference's silence policies act in a trial
// of condition c (docs/agents.md#known-answers-of-the-scenes). Both enter
// once what they hear has been quiet for 500 ms: after a turn end, and in
// a hold pause (0.6 s or more) with or without a filler before it, but
// not while a radio speaks through the pause. always-yield stops at any
// sound over its speech (an interruption, a backchannel, side talk, a
// radio, a cough, a bang); never-yield at none.
func knownAnswer(policy string, c agent.Condition) bool {
	if c.Stop() {
		return policy == refagent.AlwaysYield
	}
	return c != agent.StartDuringBackgroundHold
}

// knownAnswerDelay is when the known-answer test plays every STOP
// stimulus after the agent's onset. The reference agent's first
// utterance pauses 310 ms between its sentences about 1.8 s in; a
// stimulus drawn to start there (delays are drawn from 1.0-2.5 s) finds
// it not talking, and the trial says nothing of its policy (mptb-agent's
// reference runs have about a fifth of their STOP trials so). At 1.0 s
// every stimulus starts mid-sentence.
const knownAnswerDelay = 1.0

// knownAnswerSet is the tiny-agent set with every STOP stimulus played
// knownAnswerDelay after the onset: the same audio, scenarios.json's
// delays changed in memory.
func knownAnswerSet(t *testing.T) (string, *agent.Set) {
	dir, s := tinyAgentSet(t)
	c := *s
	c.Scenarios = slices.Clone(s.Scenarios)
	for i := range c.Scenarios {
		if st := c.Scenarios[i].Stimulus; st != nil {
			moved := *st
			moved.Delay = knownAnswerDelay
			c.Scenarios[i].Stimulus = &moved
		}
	}
	return dir, &c
}

// TestPoliciesGiveTheirKnownAnswers plays tiny-agent to never-yield and
// always-yield over every protocol, each stimulus knownAnswerDelay after
// the agent's onset: each policy gives its known answer in every
// condition, MPTB's and the scenes' (knownAnswer), and the
// protocols give the same decisions as duplex. A stop is heard where the
// agent decided it over every lossless protocol: every stop latency over
// realtime and gemini-live equals duplex's, though the agent's events
// come pipeLatency after their slots (placed at their arrival they made
// realtime's and gemini-live's stops 10 ms later, the scorer's VAD frame
// rounding up 2 ms of speech). Entries are within one frame (20 ms) of
// duplex's: realtime's agent hears its input through a 24 kHz round trip
// and may enter a frame later. Over moshi every latency is within a
// frame too, though Opus is lossy: the agent hears 20 ms Opus frames
// (one packet each, as Moshi's web client sends them) with the encoder's
// 2.5 ms lookahead dropped as the stream's pre-skip, so it decides on the
// same frames, their levels a fraction of a dB off on speech and a few dB
// on the -47 dB noise between turns, which moves an energy decision by a
// frame at most; its audio is heard 2.5 ms late (its stream declares no
// pre-skip) and the codec's 2.5 ms window overlap smears a start or a
// stop by as much, so the harness's VAD may place them one frame later,
// never more; its server feeds its encoder the offset libopus's DC
// rejection holds while the agent is silent, or a stop leaves a tail
// (tiny-agent-stop-noise-5p's stopped 50 ms later than duplex's). The trials play on a synctest bubble's clock, so no load
// delays an arrival beyond the pipe's latency.
func TestPoliciesGiveTheirKnownAnswers(t *testing.T) {
	dir, set := knownAnswerSet(t)
	for _, policy := range []string{refagent.NeverYield, refagent.AlwaysYield} {
		var first map[string]agent.Trial
		for _, protocol := range []string{proto.DuplexName, proto.RealtimeName, proto.GeminiLiveName, proto.MoshiName} {
			trials := runOn(t, dir, set, refagent.DefaultConfig(policy), policy, protocol, agent.Acoustics{})
			for id, tr := range trials {
				if want := knownAnswer(policy, tr.Condition); tr.Decision.Acted != want {
					t.Errorf("%s over %s: %s (%s): acted=%v, want %v", policy, protocol, id, tr.Condition, tr.Decision.Acted, want)
				}
				// always-yield stops within 200 ms and answers the
				// interrupter once their turn has ended and been quiet
				// for its 500 ms (a recovery).
				if m := tr.Measures; policy == refagent.AlwaysYield && tr.Condition == agent.StopOnInterruption &&
					(m.WithinTarget == nil || !*m.WithinTarget || m.Recovered == nil || !*m.Recovered) {
					t.Errorf("%s over %s: %s: stop within target %v, recovered %v", policy, protocol, id, m.WithinTarget, m.Recovered)
				}
			}
			if first == nil {
				first = trials
				continue
			}
			for id, tr := range trials {
				if tr.Decision.Acted != first[id].Decision.Acted {
					t.Errorf("%s: %s: acted=%v over %s, %v over duplex", policy, id, tr.Decision.Acted, protocol, first[id].Decision.Acted)
				}
				if !tr.Decision.Acted {
					continue
				}
				d := tr.Decision.Latency - first[id].Decision.Latency
				t.Logf("%s over %s: %s: latency %.0f ms, %+.0f ms from duplex", policy, protocol, id, 1000*tr.Decision.Latency, 1000*d)
				switch {
				case tr.Condition.Stop() && protocol != proto.MoshiName && math.Abs(d) > 1e-9:
					t.Errorf("%s: %s: stop latency %.0f ms over %s, %.0f ms over duplex: the same stop heard at another time",
						policy, id, 1000*tr.Decision.Latency, protocol, 1000*first[id].Decision.Latency)
				case math.Abs(d) > proto.FrameDuration.Seconds()+1e-9:
					t.Errorf("%s: %s: latency %.0f ms over %s, %.0f ms over duplex: more than a frame apart",
						policy, id, 1000*tr.Decision.Latency, protocol, 1000*first[id].Decision.Latency)
				}
			}
		}
	}
}

// TestRunResumesAndRecordsFailures: a second run over the same folder
// plays nothing; an endpoint that is gone leaves failed recordings with
// the error, and the run still ends.
func TestRunResumesAndRecordsFailures(t *testing.T) {
	dir, s := tinyAgentSet(t)
	out := t.TempDir()
	ro := RunOptions{Options: DefaultOptions("ny", "duplex", ""), Repeats: 1, Sessions: Sessions{Concurrency: 4, Retries: 0}}
	ctx := context.Background()
	testenv.Synctest(t, func(t *testing.T) {
		ro.Endpoint = serveReference(t, refagent.NeverYield, "duplex")
		if sum, err := Run(t.Context(), dir, s, ro, out); err != nil || sum.Err() != nil {
			t.Fatal(err, sum.Err())
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	sum, err := Run(ctx, dir, s, ro, out)
	if err != nil || sum.Resumed != len(s.Scenarios) || sum.Played != 0 || sum.Err() != nil {
		t.Fatalf("second run: %+v, %v (want every trial resumed)", sum, err)
	}
	ro.Agent = "gone"
	ro.Endpoint = proto.Endpoint{Protocol: "duplex", URL: "ws://" + testenv.Addr(testenv.FreePort(t)) + "/"}
	sum, err = Run(ctx, dir, s, ro, out)
	if err != nil || sum.Failed != len(s.Scenarios) {
		t.Fatalf("run against nothing: %+v, %v (want every trial failed, no error)", sum, err)
	}
	if err := sum.Err(); !errors.Is(err, ErrEveryTrialFailed) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("a run whose every trial failed: %v, want ErrEveryTrialFailed with the first trial's error", err)
	}
	r, err := agent.ReadRecording(filepath.Join(out, agent.TrialName("gone", s.Scenarios[0].ID, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if r.Error == "" || r.HasAudio() {
		t.Fatalf("failed trial recorded as %q with audio %v", r.Error, r.HasAudio())
	}
}

// A scenario set's planned length (agent.PlannedSet, what a sweep's dry
// run estimates from before the set is generated) bounds every generated
// scenario's, so the planned estimate bounds the generated one.
func TestPlannedScenariosBoundTheGenerated(t *testing.T) {
	_, generated := tinyAgentSet(t)
	preset, err := agent.ScenarioPresetByName("tiny-agent")
	if err != nil {
		t.Fatal(err)
	}
	planned := agent.PlannedSet(preset)
	o := DefaultOptions("a", proto.DuplexName, "")
	for i := range generated.Scenarios {
		g := &generated.Scenarios[i]
		p := &planned.Scenarios[i]
		if p.ID != g.ID {
			t.Fatalf("planned scenario %d is %s, generated %s", i, p.ID, g.ID)
		}
		if pd, gd := TrialLength(p, o), TrialLength(g, o); pd < gd {
			t.Errorf("%s: planned %v, generated %v", g.ID, pd, gd)
		}
	}
	ro := RunOptions{Options: o, Repeats: 3, Sessions: Sessions{Concurrency: 4}}
	t.Logf("tiny-agent, 3 repeats at concurrency 4: planned %v, generated %v", Estimate(planned, ro), Estimate(generated, ro))
}

// misbehaving serves a duplex agent that behaves as told on each
// connection.
func misbehaving(t *testing.T, behave func(ctx context.Context, c *websocket.Conn)) proto.Endpoint {
	t.Helper()
	return servePipe(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		behave(r.Context(), c)
	}), proto.DuplexName)
}

// helloThen reads the client's hello, answers with a duplex hello
// declaring rate, then does then.
func helloThen(rate int, then func(ctx context.Context, c *websocket.Conn)) func(context.Context, *websocket.Conn) {
	return func(ctx context.Context, c *websocket.Conn) {
		if _, _, err := c.Read(ctx); err != nil {
			return
		}
		hello := fmt.Sprintf(`{"type":"hello","protocol":"floorbench-duplex","version":1,"sample_rate":%d,"channels":1,"encoding":"pcm_s16le","frame_ms":20}`, rate)
		if c.Write(ctx, websocket.MessageText, []byte(hello)) == nil {
			then(ctx, c)
		}
	}
}

// readUntilGone reads until the client goes.
func readUntilGone(ctx context.Context, c *websocket.Conn) {
	for {
		if _, _, err := c.Read(ctx); err != nil {
			return
		}
	}
}

// An agent that sends malformed frames, closes after its hello, declares
// another sample rate, never answers or hangs leaves every trial failed with
// that error (naming the agent) in its recording, and the run ends:
// nothing hangs. (`agent run` opens one session first, so such an agent
// is one error before any trial there.)
func TestMisbehavingAgentsGiveClearErrors(t *testing.T) {
	dir, s := tinyAgentSet(t)
	for _, c := range []struct {
		name   string
		behave func(context.Context, *websocket.Conn)
		want   string
	}{
		{"malformed frames", helloThen(16000, func(ctx context.Context, c *websocket.Conn) {
			c.Write(ctx, websocket.MessageBinary, []byte("abc"))
			readUntilGone(ctx, c)
		}), "a binary message of 3 bytes; a frame is 640 bytes"},
		{"closes after its hello", helloThen(16000, func(context.Context, *websocket.Conn) {}), "dropped the connection"},
		{"wrong sample rate", helloThen(24000, readUntilGone), "sample_rate 24000"},
		{"never answers", readUntilGone, "no answer within 2s of session time"},
		{"hangs after its hello", helloThen(16000, func(ctx context.Context, _ *websocket.Conn) { <-ctx.Done() }), "agent stopped: the duplex agent at "},
	} {
		t.Run(c.name, func(t *testing.T) {
			testenv.Synctest(t, func(t *testing.T) {
				ep := misbehaving(t, c.behave)
				ep.HandshakeTimeout = 2 * time.Second
				ro := RunOptions{Options: DefaultOptions("bad", "duplex", ""), Repeats: 1,
					Sessions: Sessions{Concurrency: 4, Retries: 1, Backoff: 10 * time.Millisecond, Endpoint: ep}}
				out := t.TempDir()
				sum, err := Run(t.Context(), dir, s, ro, out)
				if err != nil || sum.Failed != len(s.Scenarios) {
					t.Fatalf("run: %+v, %v (want every trial failed, no error)", sum, err)
				}
				for _, sc := range s.Scenarios {
					r, err := agent.ReadRecording(filepath.Join(out, agent.TrialName("bad", sc.ID, 0)))
					if err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(r.Error, c.want) || !strings.Contains(r.Error, pipeURL) || r.HasAudio() {
						t.Errorf("%s: error %q with audio %v; want %q naming %s", sc.ID, r.Error, r.HasAudio(), c.want, pipeURL)
					}
				}
			})
		})
	}
}

// The detector-backed policy (rms-endpointer with 2 s ramps at 0.25,
// the cascaded-agent baseline) lands between the extremes: over each
// protocol it enters after every turn end, as both extremes do, and
// yields to some STOP stimuli but not all (never-yield yields to none,
// always-yield to all). Its decisions are not compared across protocols:
// a STOP stimulus is played relative to when the agent is heard, so what
// the detector hears of a backchannel moves with the output delay, and
// its decision on one can go either way (under the race detector on a
// loaded machine it yielded to a different backchannel over each
// protocol); the extremes' decisions do not depend on it. The stimuli
// play knownAnswerDelay after the onset, mid-sentence, so every trial is
// decided.
func TestTheDetectorPolicyLandsBetween(t *testing.T) {
	sys, err := detect.Builtin("rms-endpointer")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"eot_ramp_s", "int_ramp_s"} {
		if err := sys.SetParam(p, "2"); err != nil {
			t.Fatal(err)
		}
	}
	cfg := refagent.DefaultConfig(refagent.Detector)
	cfg.Detector.System, cfg.Detector.Name, cfg.Detector.Threshold, cfg.Detector.Runtime = sys, "rms-endpointer", 0.25, detect.RuntimeFromEnv()
	dir, set := knownAnswerSet(t)
	for _, protocol := range []string{"duplex", "realtime"} {
		trials := runOn(t, dir, set, cfg, refagent.Detector, protocol, agent.Acoustics{})
		yielded, stops := 0, 0
		for id, tr := range trials {
			t.Logf("%s %s (%s): acted=%v", protocol, id, tr.Condition, tr.Decision.Acted)
			if tr.Condition == agent.StartAfterEOT && !tr.Decision.Acted {
				t.Errorf("over %s: %s: did not enter after the turn end", protocol, id)
			}
			if tr.Condition.Stop() {
				stops++
				if tr.Decision.Acted {
					yielded++
				}
			}
		}
		if yielded == 0 || yielded == stops {
			t.Errorf("over %s: yielded to %d of %d STOP stimuli; want some, not all", protocol, yielded, stops)
		}
	}
}

// failures are the errors of the failed trials recorded in out.
func failures(t *testing.T, out string) []string {
	t.Helper()
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, e := range entries {
		if r, err := agent.ReadRecording(filepath.Join(out, e.Name())); err == nil && r.Error != "" {
			errs = append(errs, e.Name()+": "+r.Error)
		}
	}
	return errs
}

// oneSided is a session whose one side fails with err at once while the
// other waits until it is stopped.
type oneSided struct {
	err      error
	sendFail bool
}

func (s oneSided) Send(ctx context.Context, _ []float32) error {
	if s.sendFail {
		return s.err
	}
	<-ctx.Done()
	return ctx.Err()
}

func (s oneSided) Recv(ctx context.Context) (proto.Output, error) {
	if !s.sendFail {
		return proto.Output{}, s.err
	}
	<-ctx.Done()
	return proto.Output{}, ctx.Err()
}

// Confirm is never reached: a side fails before the last frame.
func (oneSided) Confirm(context.Context) error { return nil }

func (oneSided) Close() error { return nil }

// When one side of a trial fails, its failure is the trial's error, not
// the cancelled context the other side then sees.
func TestTheFirstFailureIsTheTrialsError(t *testing.T) {
	dir, s := tinyAgentSet(t)
	sc := &s.Scenarios[0]
	a, err := agent.LoadAudio(dir, sc)
	if err != nil {
		t.Fatal(err)
	}
	cause := errors.New("the agent's own failure")
	for _, sendFail := range []bool{false, true} {
		_, _, _, err := Play(context.Background(), oneSided{cause, sendFail}, Trial{Scenario: sc, Audio: a}, DefaultOptions("a", "duplex", ""))
		if !errors.Is(err, cause) {
			t.Errorf("the sender fails %v: %v, want the failure", sendFail, err)
		}
	}
}
