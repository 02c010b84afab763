package seated

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/testenv"
)

// burstEvery is how often, in input frames, the burst agent speaks, up to
// frame burstUntil (40 s: every burst is heard within the fixture's 61 s
// conversations, however late a loaded machine plays it).
const (
	burstEvery = 150
	burstUntil = 2000
)

// bursts is an agent that says a 0.3 s tone every burstEvery frames, from
// frame 100 to burstUntil, and fails at frame failAt when failAt > 0.
type bursts struct {
	k, failAt int
}

func (a *bursts) Hear(in, own []float32) (proto.Decision, error) {
	a.k++
	if a.failAt > 0 && a.k == a.failAt {
		return proto.Decision{}, errors.New("the agent broke")
	}
	if a.k%burstEvery != 100 || a.k > burstUntil {
		return proto.Decision{}, nil
	}
	x := make([]float32, int(0.3*proto.SampleRate))
	tone(x, 0, 0.3)
	return proto.Decision{Say: x}, nil
}

// smallCorpus writes the smallest fixture corpus: two 61 s conversations
// of two speakers, one per split.
func smallCorpus(t *testing.T) *corpus.Corpus {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "small")
	if err := auditfixture.Write(dir, auditfixture.Small(), 1); err != nil {
		t.Fatal(err)
	}
	c, err := corpus.Open(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// serveAgent serves newAgent over duplex on a proto.Pipe and returns the
// endpoint that dials it.
func serveAgent(t *testing.T, newAgent proto.NewAgent) proto.Endpoint {
	t.Helper()
	h, err := proto.NewHandler(proto.DuplexName, newAgent, proto.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return servePipe(t, h, proto.DuplexName)
}

// tcpEndpoint is a duplex endpoint at url, over TCP.
func tcpEndpoint(url string) proto.Endpoint {
	return proto.Endpoint{Protocol: proto.DuplexName, URL: url, Rate: 1}
}

func faultJob(c *corpus.Corpus, name string, ep proto.Endpoint, out string) Job {
	o := DefaultOptions(name, ep)
	o.Backoff, o.Retries = time.Millisecond, 1
	return Job{Corpus: c, Options: o, Params: DefaultParams(), Out: out}
}

// wantBursts is how many bursts the agent says in a session.
func wantBursts() int { return (burstUntil-100)/burstEvery + 1 }

// A run writes a submission per split in which every burst is an EOT
// prediction for the other speaker; run again over the same folder with
// the agent gone, it plays nothing and writes the same bytes.
func TestRunResumesWithoutTheAgent(t *testing.T) {
	c := smallCorpus(t)
	out := filepath.Join(t.TempDir(), "run")
	testenv.Synctest(t, func(t *testing.T) { testRunResumesWithoutTheAgent(t, c, out) })
}

func testRunResumesWithoutTheAgent(t *testing.T, c *corpus.Corpus, out string) {
	ep := serveAgent(t, func() (proto.Agent, error) { return &bursts{}, nil })
	res, err := faultJob(c, "bursts", ep, out).Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res.Played != 4 || res.Resumed != 0 || len(res.Failed) != 0 || len(res.Predictions) != 2 {
		t.Fatalf("first run: %+v", res)
	}
	for _, split := range []string{"dev", "test"} {
		sub, err := score.ReadSubmission(filepath.Join(out, PredictionsName(split)), limits.Default())
		if err != nil {
			t.Fatal(err)
		}
		convs, _ := c.Conversations(split)
		for k, sp := range sub.Conversations[0].Speakers {
			other := Seat{Conversation: convs[0], Speaker: 2 - k} // the seat whose onsets predict speaker k+1's EOT
			if n, want := heardBursts(t, out, other), wantBursts(); n != want {
				t.Errorf("%s: heard %d bursts, want %d", other.Name(), n, want)
			}
			if want := thin(seatOnsets(t, out, other), DefaultParams().Refractory); !slices.Equal(sp.EOT, want) {
				t.Errorf("%s speaker %d: EOT %v, want the other seat's onsets %v", split, k+1, sp.EOT, want)
			}
		}
	}
	before := readAll(t, out)
	res, err = faultJob(c, "bursts", tcpEndpoint("ws://127.0.0.1:1/"), out).Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res.Played != 0 || res.Resumed != 4 {
		t.Errorf("second run: %+v", res)
	}
	if after := readAll(t, out); after != before {
		t.Error("the derivation from the recordings differs from the first run's")
	}
	_, err = faultJob(c, "another", ep, out).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "another --out folder") {
		t.Errorf("another agent into the same folder: %v", err)
	}
}

// readAll joins the predictions files of a run folder.
func readAll(t *testing.T, out string) string {
	t.Helper()
	var b strings.Builder
	for _, name := range []string{PredictionsName("dev"), PredictionsName("test")} {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// An agent that breaks mid-session fails every try: each seat is recorded
// with its error, seated.json lists them, no predictions are written, and
// the error names every seat. A later run with a working agent retries
// exactly those seats.
func TestRunRecordsFailedSessions(t *testing.T) {
	c := smallCorpus(t)
	out := filepath.Join(t.TempDir(), "run")
	testenv.Synctest(t, func(t *testing.T) { testRunRecordsFailedSessions(t, c, out) })
}

func testRunRecordsFailedSessions(t *testing.T, c *corpus.Corpus, out string) {
	broken := serveAgent(t, func() (proto.Agent, error) { return &bursts{failAt: 200}, nil })
	res, err := faultJob(c, "bursts", broken, out).Run(t.Context())
	if !errors.Is(err, ErrFailedSessions) {
		t.Fatalf("err = %v, want ErrFailedSessions", err)
	}
	if len(res.Failed) != 4 || res.Played != 0 {
		t.Fatalf("result %+v", res)
	}
	for _, s := range []string{"audit-00 seat 1", "audit-00 seat 2", "audit-01 seat 1", "audit-01 seat 2"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the error does not name %s: %v", s, err)
		}
	}
	r, err := ReadRecording(filepath.Join(out, SessionsDir, "audit-00--seat1"))
	if err != nil || !strings.Contains(r.Error, "after 2 tries") || len(r.Files) != 0 {
		t.Errorf("failed recording %+v, %v", r, err)
	}
	for _, split := range []string{"dev", "test"} {
		if _, err := os.Stat(filepath.Join(out, PredictionsName(split))); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want no predictions", PredictionsName(split), err)
		}
	}
	working := serveAgent(t, func() (proto.Agent, error) { return &bursts{}, nil })
	res, err = faultJob(c, "bursts", working, out).Run(t.Context())
	if err != nil || res.Played != 4 {
		t.Fatalf("rerun: %+v, %v", res, err)
	}
}

// An endpoint that refuses is one error before anything starts, and
// leaves no folder.
func TestRunRefusedEndpointLeavesNothing(t *testing.T) {
	c := smallCorpus(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	out := filepath.Join(t.TempDir(), "run")
	_, err = faultJob(c, "bursts", tcpEndpoint("ws://"+addr+"/"), out).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "agent bursts") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s exists after a refused endpoint", out)
	}
}

// A server killed in the middle of a session and started again at the
// same endpoint: the session is retried whole and the run ends as an
// undisturbed one does, every burst heard.
func TestRunRetriesASessionWhoseServerWasKilled(t *testing.T) {
	c := smallCorpus(t)
	out := filepath.Join(t.TempDir(), "run")
	testenv.Synctest(t, func(t *testing.T) { testRunRetriesASessionWhoseServerWasKilled(t, c, out) })
}

func testRunRetriesASessionWhoseServerWasKilled(t *testing.T, c *corpus.Corpus, out string) {
	var (
		once    sync.Once
		killed  = make(chan struct{})
		serving sync.WaitGroup
		pipe    atomic.Pointer[proto.Pipe]
	)
	newAgent := func() (proto.Agent, error) {
		return &killer{bursts: &bursts{}, kill: func() { once.Do(func() { close(killed) }) }}, nil
	}
	h, err := proto.NewHandler(proto.DuplexName, newAgent, proto.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	restarted, err := proto.NewHandler(proto.DuplexName, newAgent, proto.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	first, stop := context.WithCancel(ctx)
	pipe.Store(proto.NewPipe())
	serving.Go(func() { proto.Serve(first, pipe.Load(), h) })
	serving.Go(func() {
		<-killed
		stop()
		again := proto.NewPipe()
		pipe.Store(again) // dials until now found the first pipe closed
		proto.Serve(ctx, again, restarted)
	})
	ep := proto.Endpoint{Protocol: proto.DuplexName, URL: pipeURL, Rate: 1, Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return pipe.Load().Dial(ctx, network, addr)
	}}
	job := faultJob(c, "bursts", ep, out)
	job.Options.Retries, job.Options.Backoff = 3, 100*time.Millisecond
	res, err := job.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Played != 4 || len(res.Failed) != 0 {
		t.Errorf("result %+v", res)
	}
	for _, s := range Seats(c.Manifest.Conversations, nil) {
		if n, want := heardBursts(t, out, s), wantBursts(); n != want {
			t.Errorf("%s: heard %d bursts, want %d", s.Name(), n, want)
		}
	}
	cancel()
	serving.Wait()
}

// seatOnsets reads a seat's onsets as predictions.
func seatOnsets(t *testing.T, out string, s Seat) []float64 {
	t.Helper()
	dir := filepath.Join(out, SessionsDir, s.Name())
	r, err := ReadRecording(dir)
	if err != nil {
		t.Fatal(err)
	}
	x, err := r.ReadOutput(dir)
	if err != nil {
		t.Fatal(err)
	}
	return Onsets(x, s.Conversation.Duration, DefaultParams().VAD)
}

// heardBursts counts the replies heard from the agent in a seat's
// recording: onsets 2.5 s or more apart (bursts are said 3 s apart, and
// a client's playback delay only grows), since a stalled machine may play
// one burst with a gap in it.
func heardBursts(t *testing.T, out string, s Seat) int {
	t.Helper()
	dir := filepath.Join(out, SessionsDir, s.Name())
	r, err := ReadRecording(dir)
	if err != nil {
		t.Fatal(err)
	}
	x, err := r.ReadOutput(dir)
	if err != nil {
		t.Fatal(err)
	}
	var onsets []float64
	for _, seg := range DefaultParams().VAD.Segments(x) {
		onsets = append(onsets, seg.Onset)
	}
	return len(thin(onsets, 2.5))
}

// killer is the burst agent that kills its server a third of the way in.
type killer struct {
	*bursts
	kill func()
}

func (a *killer) Hear(in, own []float32) (proto.Decision, error) {
	if a.k == 1000 {
		a.kill()
	}
	return a.bursts.Hear(in, own)
}

func TestEstimateSpreadsSessionsOverTheConcurrency(t *testing.T) {
	conv := corpus.Conversation{ID: "c", Speakers: 2, Samples: 100 * proto.SampleRate, Duration: 100}
	seats := Seats([]corpus.Conversation{conv, conv}, nil)
	o := DefaultOptions("a", proto.Endpoint{Protocol: proto.DuplexName, Rate: 2})
	o.Concurrency, o.Tail = 2, 0.5
	// 4 sessions of 100.5 s and the default 10 s handshake timeout each
	// (harness.SessionDeadline), 2 at once, at twice real time.
	want := time.Duration(math.Round(4*110.5/2/2)) * time.Second
	if got := Estimate(seats, o); got != want {
		t.Errorf("Estimate = %v, want %v", got, want)
	}
}

// stuck is an agent that stops answering after its first frames: it
// blocks until released.
type stuck struct {
	k       int
	release <-chan struct{}
}

func (a *stuck) Hear(in, own []float32) (proto.Decision, error) {
	if a.k++; a.k == 10 {
		<-a.release
	}
	return proto.Decision{}, nil
}

// An agent that stops answering never hangs a run and is never scored as
// a silent one: over realtime (whose client only sends, and which has no
// idle timeout) the agent answers no ping, on any machine, however much of
// the session the socket buffers take, and the seat is recorded with an
// error that says the agent stopped.
func TestRunSeatOfAnAgentThatStopsAnswering(t *testing.T) {
	c := smallCorpus(t)
	out := filepath.Join(t.TempDir(), "run")
	testenv.Synctest(t, func(t *testing.T) { testRunSeatOfAnAgentThatStopsAnswering(t, c, out) })
}

func testRunSeatOfAnAgentThatStopsAnswering(t *testing.T, c *corpus.Corpus, out string) {
	release := make(chan struct{})
	h, err := proto.NewHandler(proto.RealtimeName, func() (proto.Agent, error) { return &stuck{release: release}, nil },
		proto.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job := faultJob(c, "stuck", servePipe(t, h, proto.RealtimeName), out)
	t.Cleanup(func() { close(release) }) // before the server closes: its handlers are blocked in the agent
	job.Options.Retries = 0
	job.Split, job.Speakers = "dev", Speakers{1}
	res, err := job.Run(t.Context())
	if !errors.Is(err, ErrFailedSessions) || len(res.Failed) != 1 {
		t.Fatalf("err %v, result %+v", err, res)
	}
	if msg := res.Failed[0].Error; !strings.Contains(msg, proto.ErrStopped.Error()+": the realtime agent at ") {
		t.Errorf("failure %q does not say the agent stopped", msg)
	}
}

// failsAtOnce is a session whose receiving side fails with err at once
// while sending waits until it is stopped.
type failsAtOnce struct{ err error }

func (s failsAtOnce) Send(ctx context.Context, _ []float32) error { <-ctx.Done(); return ctx.Err() }
func (s failsAtOnce) Recv(context.Context) (proto.Output, error)  { return proto.Output{}, s.err }
func (failsAtOnce) Confirm(context.Context) error                 { return nil }
func (failsAtOnce) Close() error                                  { return nil }

// When the receiving side of a session fails, its failure is the
// session's error, not the cancelled context the sender then sees.
func TestTheFirstFailureIsTheSessionsError(t *testing.T) {
	cause := errors.New("the agent's own failure")
	if _, _, err := Play(context.Background(), failsAtOnce{cause}, make([]float32, 10*proto.FrameSamples)); !errors.Is(err, cause) {
		t.Errorf("Play: %v, want the receiver's failure", err)
	}
}

// An agent that opens each session and closes it with its credential in
// the close reason leaves the credential in no error, no session.json
// and no seated.json.
func TestAFailedSeatKeepsNoCredential(t *testing.T) {
	c := smallCorpus(t)
	out := filepath.Join(t.TempDir(), "run")
	testenv.Synctest(t, func(t *testing.T) { testAFailedSeatKeepsNoCredential(t, c, out) })
}

func testAFailedSeatKeepsNoCredential(t *testing.T, c *corpus.Corpus, out string) {
	const key = "sk-probe-seated-8e2b"
	ep := servePipe(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer conn.CloseNow()
		conn.Read(r.Context())
		conn.Write(r.Context(), websocket.MessageText, []byte(`{"type":"hello","protocol":"floorbench-duplex","version":1,"sample_rate":16000,"channels":1,"encoding":"pcm_s16le","frame_ms":20}`))
		conn.Close(websocket.StatusPolicyViolation, "bad key "+key)
	}), proto.DuplexName)
	job := faultJob(c, "leaky", ep, out)
	job.Options.Endpoint.Credential = key
	_, err := job.Run(t.Context())
	if !errors.Is(err, ErrFailedSessions) || strings.Contains(err.Error(), key) {
		t.Fatalf("err = %v, want ErrFailedSessions without the key", err)
	}
	files := 0
	filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
			if data, _ := os.ReadFile(path); strings.Contains(string(data), key) || strings.Contains(string(data), "8e2b") {
				t.Errorf("%s holds the credential", path)
			}
		}
		return nil
	})
	if files < 5 { // four session.json and seated.json
		t.Errorf("%d files in %s", files, out)
	}
}
