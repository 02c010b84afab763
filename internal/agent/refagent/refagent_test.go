package refagent

import (
	"context"
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/score"
)

// The user's two lines: a question that hands the agent the floor, and a
// claim of the floor while the agent answers.
const (
	question = "Could you tell me what the weather will be like tomorrow morning?"
	claim    = "Sorry, wait, I need to stop you there for a second, please."
)

// newReference makes a reference agent or fails.
func newReference(t *testing.T, cfg Config) *Reference {
	t.Helper()
	ref, err := New(context.Background(), cfg, espeak(t))
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// firstDone is the status of the trial's first response_done.
func (tr trial) firstDone(t *testing.T) string {
	t.Helper()
	for _, e := range tr.events {
		if e.Kind == proto.ResponseDone {
			return e.Status
		}
	}
	t.Fatalf("no response ended: events %+v", tr.events)
	return ""
}

// talkedOver runs the talk-over trial with ref over duplex (reactively:
// the claim starts once the agent has been heard), then replays the same
// tape over realtime.
func talkedOver(t *testing.T, ref *Reference) (duplex, realtime trial) {
	t.Helper()
	tts := espeak(t)
	duplex = drive(t, ref, proto.DuplexName, talkOver(say(t, tts, question), say(t, tts, claim)))
	realtime = drive(t, ref, proto.RealtimeName, tapeOf(duplex.tape))
	return duplex, realtime
}

// always-yield stops when the user talks over it and never-yield talks on
// to the end of its utterance, and a listener hears exactly that, over
// both protocols; over realtime the client's own barge-in cuts the audio
// it holds. The same tape gives the same decisions, at the same times of
// the agent's clock, over duplex and realtime.
func TestTheExtremePoliciesOverBothProtocols(t *testing.T) {
	for _, policy := range []string{AlwaysYield, NeverYield} {
		t.Run(policy, func(t *testing.T) {
			ref := newReference(t, DefaultConfig(policy))
			whole := firstRun(ref.long[0])
			duplex, realtime := talkedOver(t, ref)
			for name, tr := range map[string]trial{"duplex": duplex, "realtime": realtime} {
				run := firstRun(tr.heard)
				switch policy {
				case AlwaysYield:
					if run == 0 || run > whole*3/4 || tr.firstDone(t) != "cancelled" {
						t.Errorf("%s: heard %d of the utterance's %d frames, first response %s; want it cut short and cancelled",
							name, run, whole, tr.firstDone(t))
					}
				case NeverYield:
					if run < whole || tr.firstDone(t) != "completed" || tr.count(proto.BargeIn) > 0 {
						t.Errorf("%s: heard %d of the utterance's %d frames, first response %s, %d barge-ins; want all of it, completed",
							name, run, whole, tr.firstDone(t), tr.count(proto.BargeIn))
					}
				}
			}
			if policy == AlwaysYield && realtime.count(proto.BargeIn) == 0 {
				t.Errorf("realtime: the client did not stop its playback: events %+v", realtime.events)
			}
			for _, kind := range []proto.EventKind{proto.SpeechStarted, proto.SpeechStopped} {
				if d, r := duplex.agentTimes(kind), realtime.agentTimes(kind); !slices.Equal(d, r) || len(d) == 0 {
					t.Errorf("%s at agent times %v over duplex, %v over realtime", kind, d, r)
				}
			}
		})
	}
}

// detectorSystem is rms-endpointer with both ramps at 2 s: at threshold
// 0.25 it commits an EOT after 0.5 s of silence and an INT after 0.5 s of
// overlap.
func detectorSystem(t testing.TB) *detect.System {
	t.Helper()
	sys, err := detect.Builtin("rms-endpointer")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"eot_ramp_s", "int_ramp_s"} {
		if err := sys.SetParam(p, "2"); err != nil {
			t.Fatal(err)
		}
	}
	return sys
}

func detectorConfig(t testing.TB, speakAtCommit bool) Config {
	cfg := DefaultConfig(Detector)
	cfg.Detector.System, cfg.Detector.Name, cfg.Detector.Threshold = detectorSystem(t), "rms-endpointer", 0.25
	cfg.Detector.Runtime, cfg.Detector.SpeakAtCommit = detect.RuntimeFromEnv(), speakAtCommit
	return cfg
}

// In speak-at-commit mode the agent starts a short reply at every EOT
// commit of the offline detector on the same audio, within one streaming
// frame of the commit time: a seated agent speaks where the offline
// detector commits.
func TestSpeakAtCommitSpeaksWhereTheOfflineDetectorCommits(t *testing.T) {
	cfg := detectorConfig(t, true)
	ref := newReference(t, cfg)
	tts := espeak(t)
	pause := make([]float32, 150*proto.FrameSamples)
	tape := slices.Concat(pause[:10*proto.FrameSamples], say(t, tts, question), pause, say(t, tts, claim), pause)
	tape = tape[:len(tape)/proto.FrameSamples*proto.FrameSamples]
	tr := drive(t, ref, proto.DuplexName, tapeOf(tape))

	d, err := cfg.Detector.System.Open(cfg.Detector.Runtime)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	scores, err := d.Detect(context.Background(), &detect.Conversation{ID: "talk", SampleRate: proto.SampleRate,
		Duration: float64(len(tape)) / proto.SampleRate, Channels: [][]float32{tape, make([]float32, len(tape))}})
	if err != nil {
		t.Fatal(err)
	}
	commits := score.CommitTimes(scores.EOT[0], scores.FrameRate, cfg.Detector.Threshold, cfg.Detector.Refractory)
	starts := tr.agentTimes(proto.ResponseStarted)
	if len(commits) < 2 || len(starts) != len(commits) {
		t.Fatalf("the agent started %d replies at %v ms; the offline detector commits %v s", len(starts), starts, commits)
	}
	for i, c := range commits {
		if lag := float64(starts[i]) - 1000*c; lag < -1e-9 || lag > 10+1e-9 {
			t.Errorf("reply %d started at %d ms, the commit is at %.0f ms: want within one 10 ms score frame after it", i, starts[i], 1000*c)
		}
	}
	if tr.count(proto.ResponseDone) != len(starts) || tr.firstDone(t) != "completed" {
		t.Errorf("replies %d, responses done %d (first %s): every short reply runs to its end", len(starts), tr.count(proto.ResponseDone), tr.firstDone(t))
	}
}

// The detector policy enters after the question and yields to the claim
// once its INT commits, over both protocols, with the same decisions.
func TestTheDetectorPolicyYieldsToAClaim(t *testing.T) {
	duplex, realtime := talkedOver(t, newReference(t, detectorConfig(t, false)))
	for name, tr := range map[string]trial{"duplex": duplex, "realtime": realtime} {
		if tr.firstDone(t) != "cancelled" {
			t.Errorf("%s: the first response %s, want cancelled by the claim", name, tr.firstDone(t))
		}
	}
	if d, r := duplex.agentTimes(proto.SpeechStarted), realtime.agentTimes(proto.SpeechStarted); !slices.Equal(d, r) {
		t.Errorf("speech_started at agent times %v over duplex, %v over realtime", d, r)
	}
}
