package detect

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"
	"time"

	ort "github.com/yalue/onnxruntime_go"
)

// benchConversation is a minute of four-speaker conversation: each speaker
// talks about a third of the time, with overlaps, as in an MPTB meeting.
func benchConversation(b *testing.B) *Conversation {
	b.Helper()
	lines := []string{
		"Let us go through the plan for the release one more time.",
		"I think the schedule is tight but we can make it work.",
		"Right, and who is going to write the documentation?",
		"Mm hmm.",
		"I can take that, if someone reviews it on Friday.",
	}
	voices := []string{"en-us", "en-gb+f2", "en-gb-scotland+m3", "en-029+f3"}
	var utts []utterance
	for i := 0; i < 28; i++ {
		utts = append(utts, utterance{speaker: i % 4, start: 0.3 + 2.05*float64(i), voice: voices[i%4], text: lines[i%len(lines)]})
	}
	c, _ := conversation(b, "bench", 4, 60, utts)
	return c
}

// benchmarkDetector reports the real-time factor per core: seconds of
// channel audio scored per second of one core (sessions run one thread).
func benchmarkDetector(b *testing.B, family string) {
	c := benchConversation(b)
	rt := runtimeFor(b, family)
	d := openSystem(b, family, rt)
	b.ResetTimer()
	for b.Loop() {
		if _, err := d.Detect(context.Background(), c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(c.Channels))*c.Duration*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
}

func BenchmarkRMS(b *testing.B)       { benchmarkDetector(b, "rms") }
func BenchmarkWebRTCVAD(b *testing.B) { benchmarkDetector(b, "webrtcvad") }
func BenchmarkSilero(b *testing.B)    { benchmarkDetector(b, "silero") }

// BenchmarkSileroOverhead compares floorbench's Silero path (BenchmarkSilero)
// with the floor under it: the same four channels' frames through a plain
// ONNX Runtime session with fixed tensors and no floorbench code (windows
// prepared in advance, state copied back each step). The two alternate in
// every iteration and the fastest run of each is kept, so that load from
// other processes on a shared machine hits both alike. overhead_% is
// floorbench's time over the bare loop's.
func BenchmarkSileroOverhead(b *testing.B) {
	c := benchConversation(b)
	rt := onnxRuntime(b)
	d := openSystem(b, "silero", rt)
	bare := newBareSilero(b, rt, c)
	fastestBare, fastestDetect := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for b.Loop() {
		start := time.Now()
		bare.run(b)
		fastestBare = min(fastestBare, time.Since(start))
		start = time.Now()
		if _, err := d.Detect(context.Background(), c); err != nil {
			b.Fatal(err)
		}
		fastestDetect = min(fastestDetect, time.Since(start))
	}
	audio := float64(len(c.Channels)) * c.Duration
	b.ReportMetric(audio/fastestBare.Seconds(), "bare_x_realtime")
	b.ReportMetric(audio/fastestDetect.Seconds(), "floorbench_x_realtime")
	b.ReportMetric(100*(fastestDetect.Seconds()/fastestBare.Seconds()-1), "overhead_%")
}

// bareSilero is Silero VAD run the way ONNX Runtime's own examples run it.
type bareSilero struct {
	session              *ort.AdvancedSession
	input, state, stateN *ort.Tensor[float32]
	output               *ort.Tensor[float32]
	windows              []float32
	steps                int
}

func newBareSilero(b *testing.B, rt Runtime, c *Conversation) *bareSilero {
	if err := rt.initONNXRuntime(); err != nil {
		b.Fatal(err)
	}
	rows := int64(len(c.Channels))
	const width = sileroContext + sileroHop
	bs := &bareSilero{steps: steps(c.heardSamples(), sileroHop, sileroHop)}
	bs.windows = make([]float32, bs.steps*int(rows)*width)
	for k, ch := range c.timeline() {
		for j := 0; j < bs.steps; j++ {
			off := (j*int(rows) + k) * width
			fillWindow(bs.windows[off:off+width], ch, (j+1)*sileroHop)
		}
	}
	var errs [5]error
	bs.input, errs[0] = ort.NewEmptyTensor[float32](ort.NewShape(rows, width))
	bs.state, errs[1] = ort.NewEmptyTensor[float32](ort.NewShape(2, rows, sileroState))
	bs.stateN, errs[2] = ort.NewEmptyTensor[float32](ort.NewShape(2, rows, sileroState))
	bs.output, errs[3] = ort.NewEmptyTensor[float32](ort.NewShape(rows, 1))
	sr, err := ort.NewScalar(int64(SampleRate))
	errs[4] = err
	if err := errors.Join(errs[:]...); err != nil {
		b.Fatal(err)
	}
	opts, _, err := rt.sessionOptions()
	if err != nil {
		b.Fatal(err)
	}
	defer opts.Destroy()
	bs.session, err = ort.NewAdvancedSession(filepath.Join(rt.Tools, SileroModelPath), []string{"input", "state", "sr"}, []string{"output", "stateN"},
		[]ort.Value{bs.input, bs.state, sr}, []ort.Value{bs.output, bs.stateN}, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bs.session.Destroy() })
	return bs
}

func (bs *bareSilero) run(b *testing.B) {
	size := len(bs.input.GetData())
	clear(bs.state.GetData())
	speech := 0
	for j := 0; j < bs.steps; j++ {
		copy(bs.input.GetData(), bs.windows[j*size:(j+1)*size])
		if err := bs.session.Run(); err != nil {
			b.Fatal(err)
		}
		copy(bs.state.GetData(), bs.stateN.GetData())
		if bs.output.GetData()[0] > 0.5 {
			speech++
		}
	}
	if speech == 0 {
		b.Fatalf("the bare session found no speech in %d steps", bs.steps)
	}
}
