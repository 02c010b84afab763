package seated

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/agent/refagent"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/generate"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/testenv"
)

var (
	tinyOnce sync.Once
	tinyRoot string
	tinyErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if tinyRoot != "" {
		os.RemoveAll(tinyRoot)
	}
	os.Exit(code)
}

// tinyCorpus generates the tiny preset (seed 1) once for the package's
// tests, with the real TTS engines.
func tinyCorpus(t *testing.T) *corpus.Corpus {
	t.Helper()
	testenv.Program(t, "espeak-ng", "speech")
	testenv.Program(t, "flite", "speech")
	tinyOnce.Do(func() {
		if tinyRoot, tinyErr = os.MkdirTemp("", "floorbench-seated-test-"); tinyErr != nil {
			return
		}
		_, tinyErr = generate.Corpus(context.Background(), generate.Options{Preset: "tiny", Seed: 1, Out: filepath.Join(tinyRoot, "tiny"), Jobs: 2})
	})
	if tinyErr != nil {
		t.Fatal(tinyErr)
	}
	c, err := corpus.Open(filepath.Join(tinyRoot, "tiny"), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Theta is the frozen threshold of the known-answer tests: rms-endpointer
// with a 2 s EOT ramp commits after 0.5 s of silence.
const theta = 0.25

// detectorConfig is the reference agent's detector policy in
// speak-at-commit mode on rms-endpointer at theta.
func detectorConfig(t *testing.T) refagent.Config {
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
	cfg := refagent.DefaultConfig(refagent.Detector)
	cfg.Detector.System, cfg.Detector.Name, cfg.Detector.Threshold = sys, "rms-endpointer", theta
	cfg.Detector.Runtime, cfg.Detector.SpeakAtCommit = detect.RuntimeFromEnv(), true
	return cfg
}

// decisionLog keeps, for every session a reference agent served, the
// input frames after which it began an utterance, keyed by the sha256 of
// everything it heard (hearing).
type decisionLog struct {
	mu      sync.Mutex
	byInput map[string][]int
}

// hearing is the key of a session in a decisionLog: the sha256 of the
// heard samples' float32 bits.
func hearing(x []float32) string {
	h := sha256.New()
	binary.Write(h, binary.LittleEndian, x)
	return hex.EncodeToString(h.Sum(nil))
}

// loggingAgent is a reference agent whose decisions go to a decisionLog.
type loggingAgent struct {
	proto.Agent
	log   *decisionLog
	heard []float32
	k     int
	says  []int
}

func (a *loggingAgent) Hear(in, own []float32) (proto.Decision, error) {
	d, err := a.Agent.Hear(in, own)
	a.heard = append(a.heard, in...)
	if d.Say != nil && own == nil {
		a.says = append(a.says, a.k)
	}
	a.k++
	return d, err
}

func (a *loggingAgent) Close() error {
	a.log.mu.Lock()
	a.log.byInput[hearing(a.heard)] = a.says
	a.log.mu.Unlock()
	if c, ok := a.Agent.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// serveReference starts the reference agent over protocol on a
// proto.Pipe and returns the endpoint that dials it, at real time, and
// the log of its decisions. Inside a testing/synctest bubble the sessions
// keep the bubble's fake time: the same decisions, delays and counts at
// any load.
func serveReference(t *testing.T, cfg refagent.Config, protocol string) (proto.Endpoint, *decisionLog) {
	t.Helper()
	testenv.Program(t, "espeak-ng", "speech")
	tts, err := refagent.EspeakTTS()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := refagent.New(context.Background(), cfg, tts)
	if err != nil {
		t.Fatal(err)
	}
	log := &decisionLog{byInput: map[string][]int{}}
	newAgent := func() (proto.Agent, error) {
		a, err := ref.NewAgent()
		return &loggingAgent{Agent: a, log: log}, err
	}
	h, err := proto.NewHandler(protocol, newAgent, proto.ServerOptions{MaxSessions: 64, Name: ref.Name()})
	if err != nil {
		t.Fatal(err)
	}
	return servePipe(t, h, protocol), log
}

// pipeURL is the URL of the agents these tests serve over a proto.Pipe.
const pipeURL = proto.PipeURL

// servePipe serves h over an in-memory pipe until the test ends and
// returns the endpoint of protocol that dials it.
func servePipe(t *testing.T, h http.Handler, protocol string) proto.Endpoint {
	t.Helper()
	ep, stop := proto.ServePipe(h, protocol)
	t.Cleanup(stop)
	ep.Rate = 1
	return ep
}
