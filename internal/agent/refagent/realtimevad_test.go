package refagent

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/score"
)

// answers is a detect.AnswerCache in memory.
type answers struct {
	mu   sync.Mutex
	data map[string][]byte
}

func (a *answers) Get(_ context.Context, key string) ([]byte, bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	d, ok := a.data[key]
	return d, ok, nil
}

func (a *answers) Put(_ context.Context, key string, data []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.data == nil {
		a.data = map[string][]byte{}
	}
	a.data[key] = data
	return nil
}

// bursts is a channel of seconds of silence with a 440 Hz tone at half
// scale over each [from, to) interval, in seconds.
func bursts(seconds float64, intervals ...[2]float64) []float32 {
	x := make([]float32, int(seconds*proto.SampleRate))
	for _, iv := range intervals {
		for i := int(iv[0] * proto.SampleRate); i < int(iv[1]*proto.SampleRate); i++ {
			x[i] = float32(0.5 * math.Sin(2*math.Pi*440*float64(i)/proto.SampleRate))
		}
	}
	return x
}

// speechTimes are the ends of the 20 ms frames at which the agent's
// speech detector, run on x itself, starts and ends speech, in seconds.
func speechTimes(t *testing.T, x []float32) (starts, ends []float64) {
	t.Helper()
	d, err := NewSpeechDetector(DefaultSpeech())
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; (k+1)*proto.FrameSamples <= len(x); k++ {
		started, ended := d.Push(x[k*proto.FrameSamples : (k+1)*proto.FrameSamples])
		at := float64((k+1)*20) / 1000
		if started {
			starts = append(starts, at)
		}
		if ended {
			ends = append(ends, at)
		}
	}
	return starts, ends
}

// The reference agent's realtime server, asked for server_vad without
// responses, reports its speech detector's decisions as speech_started
// and speech_stopped at the end of the frame that decided them (no prefix
// padding), and realtime-vad predicts EOT and INT at exactly those times;
// a second run reads the stored answers and connects to nobody. The tone
// bursts begin and end inside frames, so the 0.25 ms the realtime client's
// priming moves them cannot change which frames are loud.
//
// realtime-vad dials its URL over TCP, so this test runs on the wall
// clock, at realtimeVADRate: the answers are the server's time stamps,
// in input audio, which no rate or load moves.
func TestRealtimeVADOnTheReferenceAgent(t *testing.T) {
	ref := newReference(t, DefaultConfig(NeverYield))
	h, err := ref.Handler(proto.RealtimeName, proto.ServerOptions{Rate: realtimeVADRate})
	if err != nil {
		t.Fatal(err)
	}
	var connections atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		connections.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	url := "ws" + strings.TrimPrefix(srv.URL, "http")

	c := &detect.Conversation{ID: "c1", SampleRate: detect.SampleRate, Duration: 8, Channels: [][]float32{
		bursts(8, [2]float64{0.51, 2.01}, [2]float64{4.03, 5.05}),
		bursts(8, [2]float64{1.49, 3.07}, [2]float64{6.01, 6.61}),
	}}
	sys, err := detect.Builtin(detect.RealtimeVADFamily)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]string{{"url", url}, {"rate", fmt.Sprint(realtimeVADRate)}, {"prefix_padding_ms", "0"}} {
		if err := sys.SetParam(p[0], p[1]); err != nil {
			t.Fatal(err)
		}
	}
	rt := detect.Runtime{Answers: &answers{}}
	first := detectOnce(t, sys, rt, c)
	for k, ch := range c.Channels {
		starts, ends := speechTimes(t, ch)
		if len(starts) != 2 || len(ends) != 2 {
			t.Fatalf("speaker_%d: the speech detector decided starts %v and ends %v; the test wants two of each", k+1, starts, ends)
		}
		if got := score.CommitTimes(first.EOT[k], first.FrameRate, 0.5, 0); !closeTimes(got, ends) {
			t.Errorf("speaker_%d: EOT predictions %v, want the speech ends %v", k+1, got, ends)
		}
		if got := score.CommitTimes(first.INT[k], first.FrameRate, 0.5, 0); !closeTimes(got, starts) {
			t.Errorf("speaker_%d: INT predictions %v, want the speech starts %v", k+1, got, starts)
		}
	}
	before := connections.Load()
	again := detectOnce(t, sys, rt, c)
	if n := connections.Load() - before; n != 0 {
		t.Errorf("a rerun connected %d times; want none", n)
	}
	if !slices.EqualFunc(first.EOT, again.EOT, slices.Equal) || !slices.EqualFunc(first.INT, again.INT, slices.Equal) {
		t.Error("a rerun gave other tracks")
	}
}

func detectOnce(t *testing.T, sys *detect.System, rt detect.Runtime, c *detect.Conversation) *detect.Scores {
	t.Helper()
	d, err := sys.Open(rt)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s, err := d.Detect(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func closeTimes(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Abs(x-y) < 1e-9 })
}

// realtimeVADRate is the playback rate of TestRealtimeVADOnTheReferenceAgent.
const realtimeVADRate = 2
