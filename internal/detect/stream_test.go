package detect

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
)

// streamCase is a system to stream: a built-in family or a spec, at a frame
// rate.
type streamCase struct {
	name string
	fps  string
	open func(t *testing.T) *System
}

func builtinCase(family, fps string) streamCase {
	return streamCase{family + "@" + fps, fps, func(t *testing.T) *System {
		s, err := Builtin(family)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}}
}

func specCase(name, fps string, spec func(t *testing.T) *System) streamCase {
	return streamCase{name + "@" + fps, fps, spec}
}

// sileroSpec is testdata/silero-onnx.yaml under a floor rule.
func sileroSpec(rule string) func(t *testing.T) *System {
	return func(t *testing.T) *System {
		s, err := LoadSystem("testdata/silero-onnx.yaml", limits.Default())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetParam("floor_rule", rule); err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// probeSystem is the speaker-vs-rest probe model of onnxfixture_test.go,
// with voice activity, a direct INT output and a direct EOT output fed by
// recurrent state.
func probeSystem(t *testing.T) *System {
	s, err := ParseSystem([]byte(strings.ReplaceAll(probeSpec, "MODEL", writeProbeModel(t, 480))), "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// streamCases are every system that can stream: the built-in families, the
// onnx family under both floor rules and with a multi-output,
// speaker-vs-rest model; some at a frame rate whose frames are not a whole
// number of samples (30 Hz: 533⅓).
func streamCases() []streamCase {
	var cases []streamCase
	for _, f := range Families() {
		if f.ModelStage != nil && f.Name != "onnx" {
			cases = append(cases, builtinCase(f.Name, "100"))
		}
	}
	return append(cases,
		builtinCase("rms", "30"),
		builtinCase("webrtcvad-endpointer", "30"),
		builtinCase("silero-endpointer", "30"),
		specCase("onnx-silero-gate", "100", sileroSpec(RuleGate)),
		specCase("onnx-silero-endpointer", "100", sileroSpec(RuleEndpointer)),
		specCase("onnx-probe", "100", probeSystem),
		specCase("onnx-probe", "30", probeSystem),
	)
}

// streamAll pushes the conversation's timeline through a new stream in
// chunks of the given sizes, cycling through them, and returns the frames.
// After every push it checks that the stream has returned exactly the
// frames whose samples have all been heard (package documentation,
// "Streaming"): none held back, none early.
func streamAll(t *testing.T, s *System, rt Runtime, c *Conversation, fps float64, chunks []int) []StreamFrame {
	t.Helper()
	st, err := s.OpenStream(rt, len(c.Channels))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	timeline := c.timeline()
	var got []StreamFrame
	heard := 0 // frames complete
	push := make([][]float32, len(timeline))
	for at, n := 0, 0; at < c.heardSamples(); n++ {
		end := min(at+chunks[n%len(chunks)], c.heardSamples())
		for k, ch := range timeline {
			push[k] = ch[at:end]
		}
		frames, err := st.Push(push)
		if err != nil {
			t.Fatalf("push of samples [%d, %d): %v", at, end, err)
		}
		got = append(got, frames...)
		at = end
		// Frame i ends at (i+1)/fps seconds: it is complete once the
		// samples before then have all been heard.
		for math.Floor(float64(heard+1)*SampleRate/fps) <= float64(at) {
			heard++
		}
		if len(got) != heard {
			t.Fatalf("after %d samples the stream gave %d frames, want %d", at, len(got), heard)
		}
	}
	return got
}

// The stream is the detector: pushed the same audio, in 20 ms chunks or in
// odd sizes (one sample at a time, 157, 4099, or a random mix of sizes up to
// 2000), it gives every frame's scores bit for bit as the whole-file run
// does, and each frame as soon as its samples have all been pushed.
func TestStreamGivesTheWholeFileScoresBitForBit(t *testing.T) {
	dlg, _ := dialogue(t)
	three, _ := conversation(t, "three", 3, 9, []utterance{
		{0, 0.3, "en-us", "Let us start with the budget for the next quarter."},
		{1, 3.6, "en-gb-scotland+m3", "I have the numbers here, they look fine."},
		{2, 5.0, "en-029+f3", "Sorry, which numbers?"},
		{0, 6.4, "en-us", "The ones from last week."},
	})
	rng := rand.New(rand.NewPCG(3, 5))
	mixed := make([]int, 64)
	for i := range mixed {
		mixed[i] = 1 + rng.IntN(2000)
	}
	chunkings := map[string][]int{"20ms": {320}, "1": {1}, "157": {157}, "4099": {4099}, "mixed": mixed}
	for _, tc := range streamCases() {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.open(t)
			if err := s.SetParam("frame_rate_hz", tc.fps); err != nil {
				t.Fatal(err)
			}
			rt := runtimeFor(t, s.Family())
			d, err := s.Open(rt)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			for _, c := range []*Conversation{dlg, three} {
				whole := detect(t, d, c)
				requireFloorEvents(t, whole)
				for name, chunks := range chunkings {
					// -short: the dialogue in every chunking, the
					// three-speaker conversation in the mixed one.
					if testing.Short() && c == three && name != "mixed" {
						continue
					}
					t.Run(c.ID+"/"+name, func(t *testing.T) {
						t.Parallel()
						got := streamAll(t, s, rt, c, whole.FrameRate, chunks)
						requireSameScores(t, whole, got)
					})
				}
			}
		})
	}
}

// requireSameScores fails unless the streamed frames are the whole-file
// scores, frame for frame and bit for bit.
func requireSameScores(t *testing.T, whole *Scores, got []StreamFrame) {
	t.Helper()
	if len(got) != len(whole.EOT[0]) {
		t.Fatalf("the stream gave %d frames, the whole-file run %d", len(got), len(whole.EOT[0]))
	}
	for i, f := range got {
		if len(f.EOT) != len(whole.EOT) || len(f.INT) != len(whole.INT) {
			t.Fatalf("frame %d has %d EOT and %d INT scores for %d speakers", i, len(f.EOT), len(f.INT), len(whole.EOT))
		}
		for k := range f.EOT {
			if math.Float64bits(f.EOT[k]) != math.Float64bits(whole.EOT[k][i]) {
				t.Fatalf("speaker %d frame %d: streamed EOT %v, whole-file %v", k+1, i, f.EOT[k], whole.EOT[k][i])
			}
			if math.Float64bits(f.INT[k]) != math.Float64bits(whole.INT[k][i]) {
				t.Fatalf("speaker %d frame %d: streamed INT %v, whole-file %v", k+1, i, f.INT[k], whole.INT[k][i])
			}
		}
	}
}

// The framer hands a model the windows the package documentation defines
// (fillWindow writes them out directly) however the samples arrive.
func TestFramerWindowsDoNotDependOnChunking(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ch := make([]float32, 5000)
	for i := range ch {
		ch[i] = float32(rng.NormFloat64())
	}
	for _, g := range []struct{ frame, hop int }{{576, 512}, {480, 160}, {320, 320}, {7, 3}, {1, 1}} {
		f := newFramer(g.frame, g.hop)
		want := make([]float32, g.frame)
		j := 0
		for at := 0; at < len(ch); {
			end := min(len(ch), at+1+rng.IntN(3*g.frame))
			f.add(ch[at:end])
			at = end
			for w, ok := f.window(); ok; w, ok = f.window() {
				f.advance()
				fillWindow(want, ch, (j+1)*g.hop)
				if fmt.Sprint(w) != fmt.Sprint(want) {
					t.Fatalf("frame %d hop %d: window %d differs from the samples ending at %d", g.frame, g.hop, j, (j+1)*g.hop)
				}
				j++
			}
		}
		if j != len(ch)/g.hop {
			t.Errorf("frame %d hop %d: %d windows from %d samples, want %d", g.frame, g.hop, j, len(ch), len(ch)/g.hop)
		}
	}
}

// Bad pushes get one clear error and leave the stream usable; the external
// family, which reads files, cannot stream; a closed stream refuses pushes.
func TestStreamRefusesWhatItCannotScore(t *testing.T) {
	s, err := Builtin("rms")
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.OpenStream(Runtime{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		push [][]float32
		want string
	}{
		{[][]float32{make([]float32, 320)}, "1 channels, the stream has 2 speakers"},
		{[][]float32{make([]float32, 320), make([]float32, 319)}, "channel 2 has 319 samples, channel 1 has 320"},
	} {
		if _, err := st.Push(tc.push); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("push of %d channels: error %v, want one containing %q", len(tc.push), err, tc.want)
		}
	}
	if frames, err := st.Push([][]float32{{}, {}}); err != nil || len(frames) != 0 {
		t.Errorf("empty push: %d frames, error %v; want none and no error", len(frames), err)
	}
	if frames, err := st.Push([][]float32{make([]float32, 320), make([]float32, 320)}); err != nil || len(frames) != 2 {
		t.Errorf("after refused pushes, 20 ms gave %d frames and error %v; want 2 frames at 100 Hz", len(frames), err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Push([][]float32{make([]float32, 320), make([]float32, 320)}); err == nil {
		t.Error("push on a closed stream succeeded")
	}
	ext, err := Builtin("external")
	if err != nil {
		t.Fatal(err)
	}
	if err := ext.SetParam("dir", t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if _, err := ext.OpenStream(Runtime{}, 2); err == nil || !strings.Contains(err.Error(), "external cannot stream") {
		t.Errorf("external stream: error %v, want one saying it cannot stream", err)
	}
	if _, err := s.OpenStream(Runtime{}, 0); err == nil {
		t.Error("a stream of 0 speakers opened")
	}
}

// A speaker-vs-rest model needs someone else to listen to.
func TestStreamOfASpeakerVsRestModelNeedsTwoSpeakers(t *testing.T) {
	rt := onnxRuntime(t)
	if _, err := probeSystem(t).OpenStream(rt, 1); err == nil || !strings.Contains(err.Error(), "needs at least 2 speakers") {
		t.Errorf("one-speaker speaker-vs-rest stream: error %v, want one naming the 2 speakers it needs", err)
	}
}

// BenchmarkStreamPush pushes a four-speaker conversation through a stream
// 20 ms at a time, as a voice agent does, cycling through the conversation
// (the stream goes on past its end). ns/op is one push of all four
// channels; cpu_x_realtime is channel audio per second of the thread's CPU
// time, x_realtime per second of wall time.
func BenchmarkStreamPush(b *testing.B) {
	c := benchConversation(b)
	for _, family := range []string{"rms", "rms-endpointer", "webrtcvad", "webrtcvad-endpointer", "silero", "silero-endpointer", "onnx"} {
		b.Run(family, func(b *testing.B) {
			var s *System
			var err error
			if family == "onnx" {
				s, err = LoadSystem("testdata/silero-onnx.yaml", limits.Default())
			} else {
				s, err = Builtin(family)
			}
			if err != nil {
				b.Fatal(err)
			}
			st, err := s.OpenStream(runtimeFor(b, s.Family()), len(c.Channels))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			const chunk = SampleRate / 50
			timeline, push := c.timeline(), make([][]float32, len(c.Channels))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ResetTimer()
			cpu := threadCPU(b)
			at := 0
			for b.Loop() {
				if at+chunk > len(timeline[0]) {
					at = 0
				}
				for k, ch := range timeline {
					push[k] = ch[at : at+chunk]
				}
				if _, err := st.Push(push); err != nil {
					b.Fatal(err)
				}
				at += chunk
			}
			audio := float64(len(c.Channels)*chunk*b.N) / SampleRate
			b.ReportMetric(audio/(threadCPU(b)-cpu).Seconds(), "cpu_x_realtime")
			b.ReportMetric(audio/b.Elapsed().Seconds(), "x_realtime")
		})
	}
}

// BenchmarkOpenStream is the cost of opening and closing a two-speaker
// stream: for the model families, an ONNX Runtime session and its tensors.
func BenchmarkOpenStream(b *testing.B) {
	for _, family := range []string{"rms", "webrtcvad", "silero"} {
		b.Run(family, func(b *testing.B) {
			s, err := Builtin(family)
			if err != nil {
				b.Fatal(err)
			}
			rt := runtimeFor(b, family)
			for b.Loop() {
				st, err := s.OpenStream(rt, 2)
				if err != nil {
					b.Fatal(err)
				}
				if err := st.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
