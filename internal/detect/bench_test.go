package detect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/floorbench/floorbench/internal/limits"
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
// channel audio scored per second of CPU time of the benchmark's thread
// (cpu_x_realtime; sessions run one thread, on the caller's), and per
// second of wall time (x_realtime), which on a shared machine also counts
// the time other processes held the core.
func benchmarkDetector(b *testing.B, family string) {
	benchmarkOpen(b, openSystem(b, family, runtimeFor(b, family)))
}

// benchmarkOpen is benchmarkDetector's loop over an opened system.
func benchmarkOpen(b *testing.B, d Detector) {
	c := benchConversation(b)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	cpu := threadCPU(b)
	for b.Loop() {
		if _, err := d.Detect(context.Background(), c); err != nil {
			b.Fatal(err)
		}
	}
	audio := float64(len(c.Channels)) * c.Duration * float64(b.N)
	b.ReportMetric(audio/(threadCPU(b)-cpu).Seconds(), "cpu_x_realtime")
	b.ReportMetric(audio/b.Elapsed().Seconds(), "x_realtime")
}

// threadCPU is the CPU time the calling OS thread has used.
func threadCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD (Linux)
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkRMS(b *testing.B)       { benchmarkDetector(b, "rms") }
func BenchmarkWebRTCVAD(b *testing.B) { benchmarkDetector(b, "webrtcvad") }
func BenchmarkSilero(b *testing.B)    { benchmarkDetector(b, "silero") }

// BenchmarkFloorgru runs floorbench's own detector (models/floorgru) as
// BenchmarkSilero runs Silero: each speaker's row reads its channel and the
// others' sum, and gives EOT and INT at 50 Hz.
//
//	go test -run '^$' -bench 'Floorgru$' -benchtime 5x ./internal/detect/
func BenchmarkFloorgru(b *testing.B) {
	s, err := LoadSystem(floorgruSpec, limits.Default())
	if err != nil {
		b.Fatal(err)
	}
	d, err := s.Open(onnxRuntime(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	benchmarkOpen(b, d)
}

// BenchmarkSileroOverhead compares floorbench's Silero path (BenchmarkSilero)
// with the floor under it: the same four channels' frames through a plain
// ONNX Runtime session with fixed tensors and no floorbench code (windows
// prepared in advance, state copied back each step). The two alternate in
// every iteration on one locked thread and the least CPU time of each is
// kept, so that other processes on a shared machine distort neither.
// overhead_% is floorbench's CPU time over the bare loop's.
func BenchmarkSileroOverhead(b *testing.B) {
	c := benchConversation(b)
	rt := onnxRuntime(b)
	d := openSystem(b, "silero", rt)
	bare := newBareSilero(b, rt, c)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fastestBare, fastestDetect := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for b.Loop() {
		start := threadCPU(b)
		bare.run(b)
		fastestBare = min(fastestBare, threadCPU(b)-start)
		start = threadCPU(b)
		if _, err := d.Detect(context.Background(), c); err != nil {
			b.Fatal(err)
		}
		fastestDetect = min(fastestDetect, threadCPU(b)-start)
	}
	audio := float64(len(c.Channels)) * c.Duration
	b.ReportMetric(audio/fastestBare.Seconds(), "bare_cpu_x_realtime")
	b.ReportMetric(audio/fastestDetect.Seconds(), "floorbench_cpu_x_realtime")
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
	bs := &bareSilero{steps: c.heardSamples() / sileroHop}
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

// fillWindow copies the len(dst) samples of ch that end at sample end into
// dst, with zeros for samples before the start of the channel: a model's
// window as the framer defines it, written out directly.
func fillWindow(dst, ch []float32, end int) {
	start := end - len(dst)
	if start >= 0 {
		copy(dst, ch[start:end])
		return
	}
	clear(dst[:-start])
	copy(dst[-start:], ch[:end])
}

// BenchmarkSileroBatch measures Silero's throughput against the rows one
// session call runs (Runtime.BatchRows): seconds of channel audio per
// second of the benchmark thread's CPU time (sessions run one thread, on
// the caller's), over eight conversations of 2 to 5 speakers, as in the
// mptb preset. rows=conversation runs each conversation as its own batch
// (one row per speaker), as Detect does.
//
//	go test -run '^$' -bench SileroBatch -benchtime 3x ./internal/detect/
func BenchmarkSileroBatch(b *testing.B) {
	s, err := Builtin("silero")
	if err != nil {
		b.Fatal(err)
	}
	benchmarkBatch(b, s)
}

// BenchmarkFloorgruBatch is BenchmarkSileroBatch for models/floorgru.
//
//	go test -run '^$' -bench FloorgruBatch -benchtime 3x ./internal/detect/
func BenchmarkFloorgruBatch(b *testing.B) {
	s, err := LoadSystem(floorgruSpec, limits.Default())
	if err != nil {
		b.Fatal(err)
	}
	benchmarkBatch(b, s)
}

// benchmarkBatch runs a model system's stage over the eight conversations
// at each batch size.
func benchmarkBatch(b *testing.B, s *System) {
	c := benchConversation(b)
	var convs []*Conversation
	for i, speakers := range []int{2, 3, 4, 5, 2, 3, 4, 5} {
		d := c.Duration - float64(i)*3.5
		conv := &Conversation{ID: fmt.Sprint(i), SampleRate: SampleRate, Duration: d}
		for k := range speakers {
			conv.Channels = append(conv.Channels, c.Channels[(k+i)%len(c.Channels)])
		}
		convs = append(convs, conv)
	}
	audio := 0.0
	for _, conv := range convs {
		audio += float64(len(conv.Channels)) * conv.Duration
	}
	rt := onnxRuntime(b)
	for _, rows := range []int{1, 8, 16, 32, 64, 128} {
		name := fmt.Sprintf("rows=%d", rows)
		if rows == 1 {
			name = "rows=conversation"
		}
		b.Run(name, func(b *testing.B) {
			rt.BatchRows = rows
			m, err := s.OpenModel(rt)
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu := threadCPU(b)
			for b.Loop() {
				next := 0
				err := m.RunAll(context.Background(), Feed{
					Next: func(context.Context, bool) (*Conversation, error) {
						if next == len(convs) {
							return nil, nil
						}
						next++
						return convs[next-1], nil
					},
					Done: func(*Conversation, *ModelOutput) error { return nil },
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(audio*float64(b.N)/(threadCPU(b)-cpu).Seconds(), "channel_s_per_cpu_s")
			b.ReportMetric(audio*float64(b.N)/b.Elapsed().Seconds(), "channel_s_per_s")
		})
	}
}
