package temporalclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/agent/refagent"
	"github.com/floorbench/floorbench/internal/agent/seated"
	"github.com/floorbench/floorbench/internal/agent/sweepagent"
	"github.com/floorbench/floorbench/internal/backend"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/temporalclient"
	"github.com/floorbench/floorbench/internal/testenv"
)

// seatedTheta is the frozen threshold of the seated known answer:
// rms-endpointer with 2 s ramps commits after 0.5 s of silence.
const seatedTheta = 0.25

// seatedTail is the silence sent after each conversation: long enough
// that a reply decided at a conversation's end is heard on a loaded
// machine.
const seatedTail = 2.0

// speakAtCommit is the reference agent's detector policy speaking a
// short reply at every EOT commit of rms-endpointer (2 s ramps) at
// seatedTheta.
func speakAtCommit(t *testing.T) refagent.Config {
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
	cfg.Detector.System, cfg.Detector.Name, cfg.Detector.Threshold = sys, "rms-endpointer", seatedTheta
	cfg.Detector.Runtime, cfg.Detector.SpeakAtCommit = detect.RuntimeFromEnv(), true
	return cfg
}

// serveDetectorAgent serves the reference agent with cfg over protocol on
// 127.0.0.1 at the seated sweeps' rate.
func serveDetectorAgent(t *testing.T, cfg refagent.Config, protocol string) string {
	return detectorServer(t, cfg, protocol).url()
}

// detectorServer is serveDetectorAgent's server, which can be killed and
// started again.
func detectorServer(t *testing.T, cfg refagent.Config, protocol string) *agentServer {
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
	s := &agentServer{t: t, addr: testenv.Addr(testenv.FreePort(t)), started: make(chan struct{})}
	s.handler, err = ref.Handler(protocol, proto.ServerOptions{Rate: seatedRate, MaxSessions: 64, Log: log.New(sessionCounter{s}, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	s.start()
	t.Cleanup(func() { s.stop() })
	return s
}

// seatedSpec seats the detector-backed reference agent over both
// protocols, and an endpoint that never answers (unless silent is ""), in
// the tiny corpus beside the offline detector.
func seatedSpec(duplex, realtime, silent string) string {
	agentYAML := func(name, protocol, url, speakers string) string {
		return fmt.Sprintf(`  - name: %s
    protocol: %s
    endpoint: %s
    rate: %d
    concurrency: %d
    seated: {speakers: %s, tail_s: %g}
`, name, protocol, url, seatedRate, seatedConcurrency, speakers, seatedTail)
	}
	agents := agentYAML("seated-duplex", "duplex", duplex, "[]") + agentYAML("seated-realtime", "realtime", realtime, "[]")
	if silent != "" {
		agents += agentYAML("seated-silent", "duplex", silent, "[1]")
	}
	return `name: seated
corpora:
  - {name: tiny, generate: {preset: tiny, seed: 1}}
systems:
  - {name: rms-endpointer, builtin: rms-endpointer, params: {eot_ramp_s: "2", int_ramp_s: "2"}}
agents:
` + agents + `bootstrap: {resamples: 200, seed: 1}
`
}

// The known answer of docs/agents.md#seated-agents-in-sweeps. A sweep
// seats the reference agent, speaking a short reply at each EOT commit of
// rms-endpointer at a frozen threshold, over duplex and realtime in the
// tiny corpus (every seat), and an
// endpoint that never answers in speaker 1's seats. Then:
//
//   - both seated agents are on the bundle's EOT and INT leaderboards
//     beside the detector, at the operating point "as it behaves";
//   - in every seat each decision of the offline detector on what the
//     agent heard is heard from the stored output, at or after its
//     decision (less the VAD's 10 ms grid) and before the next, and
//     nothing else is heard;
//   - the offline detector's predictions score the same TP, FN, FP and TN
//     per split and task at its decision times as at its commit times (the
//     streaming frame changes no count), and the agent's counts in the
//     bundle are those of the replies heard from it; the offline and the
//     seated counts are logged (what is left between them is the output
//     delay);
//   - the endpoint that never answers leaves every seat failed with its
//     error in the bundle, is not ranked, and the sweep completes;
//   - a second sweep of the same seated agents under other names, and the
//     same run in process (inprocess.Run), play no seat again
//     and give the same counts.
func TestSeatedAgentsInASweepScoreAsTheOfflineDetector(t *testing.T) {
	h := newAgentSweeps(t)
	cfg := speakAtCommit(t)
	duplex, realtime := serveDetectorAgent(t, cfg, "duplex"), serveDetectorAgent(t, cfg, "realtime")
	specYAML := seatedSpec(duplex, realtime, silentEndpoint(t))
	started := time.Now()
	res, st := h.seatedSweep(specYAML)
	t.Logf("seated sweep took %v at rate %d, concurrency %d", time.Since(started).Round(time.Second), seatedRate, seatedConcurrency)
	for _, a := range st.Progress.Agents {
		if a.Seats == 0 || a.SeatsDone != a.Seats {
			t.Errorf("status of the finished sweep: agent %+v", a)
		}
	}
	for _, name := range []string{"seated-duplex", "seated-realtime"} {
		onLeaderboards(t, res, "tiny", name)
	}
	for _, r := range res.Seated {
		if r.Agent == "seated-silent" {
			if r.Seats == 0 || len(r.Failed) != r.Seats || !strings.Contains(r.Failed[0].Error, "duplex") {
				t.Errorf("the silent endpoint: %+v", r)
			}
			continue
		}
		if len(r.Failed) > 0 {
			t.Errorf("%s: failed seats %+v", r.Agent, r.Failed)
		}
	}
	if slices.ContainsFunc(res.Evaluations, func(e evaluate.Evaluation) bool { return e.System == "seated-silent" }) {
		t.Error("the silent endpoint, whose every seat failed, is ranked")
	}
	s, err := spec.Parse("seated.yaml", []byte(specYAML), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	s.Normalise()
	corpusHash := activities.GeneratedCorpusHash("tiny", 1, backend.Config{}) // a generated corpus is named by its recipe
	c, err := corpus.Open(filepath.Join(h.root, keys.Corpus(corpusHash)), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	gold := storedGold(t, h.st, corpusHash)
	for _, a := range s.Agents[:2] {
		t.Run(a.Protocol, func(t *testing.T) {
			offline := offlineSeats(t, c, a, cfg)
			if len(offline) == 0 {
				t.Fatal("no seats")
			}
			checkHeard(t, h.root, corpusHash, a, offline)
			checkCounts(t, res, a.Name, gold, offline, c, a.Protocol == proto.DuplexName)
		})
	}
	renamed := strings.ReplaceAll(strings.ReplaceAll(seatedSpec(duplex, realtime, ""), "seated-duplex", "again-duplex"), "seated-realtime", "again-realtime")
	before, err := h.st.List(context.Background(), keys.Seats)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := h.seatedSweep(renamed)
	after, err := h.st.List(context.Background(), keys.Seats)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("the second sweep stored %d seat objects more", len(after)-len(before))
	}
	local := h.inProcess(strings.ReplaceAll(renamed, "again-", "local-"))
	if last, err := h.st.List(context.Background(), keys.Seats); err != nil || len(last) != len(before) {
		t.Errorf("the run in process stored %d seat objects more (%v)", len(last)-len(before), err)
	}
	for _, names := range [][3]string{{"seated-duplex", "again-duplex", "local-duplex"}, {"seated-realtime", "again-realtime", "local-realtime"}} {
		a, b, l := seatedCounts(res, names[0]), seatedCounts(again, names[1]), seatedCounts(local, names[2])
		if a != b || a != l {
			t.Errorf("%s: %s; resumed as %s: %s; in process as %s: %s", names[0], a, names[1], b, names[2], l)
		}
	}
}

// seatedSweep submits a spec, waits for it and returns its bundle's
// results and final status.
func (h *agentSweeps) seatedSweep(specYAML string) (*bundle.Results, temporalclient.Status) {
	h.t.Helper()
	s, err := spec.Parse("seated.yaml", []byte(specYAML), limits.Default())
	if err != nil {
		h.t.Fatal(err)
	}
	in, err := sweep.Resolve(s, detect.RuntimeFromEnv())
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	run, err := temporalclient.Submit(ctx, h.cl, in)
	if err != nil {
		h.t.Fatal(err)
	}
	st, err := temporalclient.Watch(ctx, h.cl, run.GetID(), time.Second, nil)
	if err != nil || st.State != "completed" {
		h.t.Fatalf("sweep %s: %v %+v", run.GetID(), err, st)
	}
	if *recordHistories != "" && !h.recorded {
		child := run.GetID() + "/seated-" + s.Agents[0].Name
		writeHistories(ctx, h.t, h.cl, []string{run.GetID(), child}, []string{"seated-sweep", "seated"})
		h.recorded = true
	}
	data, err := store.GetBytes(ctx, h.st, keys.Bundle(st.BundleID, "results.json"))
	if err != nil {
		h.t.Fatal(err)
	}
	var res bundle.Results
	if err := json.Unmarshal(data, &res); err != nil {
		h.t.Fatal(err)
	}
	report, err := store.GetBytes(ctx, h.st, keys.Bundle(st.BundleID, "report.md"))
	if err != nil || !strings.Contains(string(report), "## Seated agents") {
		h.t.Errorf("report.md without the seated agents: %v", err)
	}
	return &res, st
}

// onLeaderboards checks that agent is ranked on corpus's EOT and INT
// leaderboards beside the detector, as it behaves.
func onLeaderboards(t *testing.T, res *bundle.Results, corpusName, agentName string) {
	t.Helper()
	for _, task := range floor.Tasks {
		i := slices.IndexFunc(res.Leaderboards, func(lb bundle.CorpusLeaderboard) bool { return lb.Corpus == corpusName && lb.Task == task })
		if i < 0 {
			t.Fatalf("no %s leaderboard of %s", task, corpusName)
		}
		var names []string
		found := false
		for _, r := range res.Leaderboards[i].Rows {
			names = append(names, r.System)
			if r.System == agentName {
				found = r.OperatingPoint == seated.OperatingPoint && math.IsNaN(float64(r.Theta))
			}
		}
		if !found || !slices.Contains(names, "rms-endpointer") {
			t.Errorf("%s leaderboard of %s: %v; want %s as it behaves beside rms-endpointer", task, corpusName, names, agentName)
		}
	}
}

// offlineSeat is the offline detector on one seat: its EOT commits on
// what the seated agent heard, and the mix it heard.
type offlineSeat struct {
	seat    seated.Seat
	mix     []float32
	commits []float64
	// heard are the onsets of the agent's replies in the stored output.
	heard []float64
}

// offlineSeats runs the detector whole-file over exactly what the agent
// heard in each of its seats (proto.HeardInput of the seat's mix, the
// conversation and the tail) and commits its speaker-1 EOT track at the
// frozen threshold.
func offlineSeats(t *testing.T, c *corpus.Corpus, a spec.Agent, cfg refagent.Config) []offlineSeat {
	t.Helper()
	d, err := cfg.Detector.System.Open(cfg.Detector.Runtime)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var out []offlineSeat
	for _, s := range sweepagent.Seats(c.Manifest, a) {
		channels, err := c.Channels16k(s.Conversation)
		if err != nil {
			t.Fatal(err)
		}
		mix := seated.Mix(channels, s.Speaker, seated.InputFrames(s.Conversation, a.Seated.TailS))
		heard, err := proto.HeardInput(a.Protocol, mix)
		if err != nil {
			t.Fatal(err)
		}
		scores, err := d.Detect(context.Background(), &detect.Conversation{ID: s.Conversation.ID, SampleRate: proto.SampleRate,
			Duration: float64(len(heard)) / proto.SampleRate, Channels: [][]float32{heard, make([]float32, len(heard))}})
		if err != nil {
			t.Fatal(err)
		}
		commits := score.CommitTimes(scores.EOT[0], scores.FrameRate, cfg.Detector.Threshold, cfg.Detector.Refractory)
		out = append(out, offlineSeat{seat: s, mix: mix, commits: commits})
	}
	return out
}

// decisionTime is when, in the conversation's audio, the reference agent
// starts to speak for a commit at c: after the input frame in which a
// server has heard the commit's last sample.
func decisionTime(c float64) float64 {
	samples := int(math.Round(c * proto.SampleRate))
	frame := (samples+proto.FrameSamples-1)/proto.FrameSamples - 1
	return float64((frame+1)*proto.FrameSamples) / proto.SampleRate
}

// checkHeard reads the replies heard in every seat of the local store
// under root and checks them against the offline decisions
// (checkReplies).
func checkHeard(t *testing.T, root, corpusHash string, a spec.Agent, offline []offlineSeat) {
	t.Helper()
	for j := range offline {
		o := &offline[j]
		key := sweepagent.SeatKey(a, corpusHash, o.seat.Conversation.ID, o.seat.Speaker)
		folder := filepath.Join(root, filepath.FromSlash(key)) // the local store keeps a key's object at its path
		r, err := seated.ReadRecording(folder)
		if err != nil {
			t.Fatal(err)
		}
		output, err := r.ReadOutput(folder)
		if err != nil {
			t.Fatal(err)
		}
		var onsets []float64
		for _, seg := range agent.DefaultVAD().Segments(output) {
			onsets = append(onsets, seg.Onset)
		}
		o.heard = onsets
		checkReplies(t, o.seat.Name(), onsets, o.commits, r.Events)
	}
}

// checkReplies checks the replies heard in one seat against the offline
// commits: each commit's decision is heard, at or after its decision time
// (less the VAD's 10 ms grid) and before the next decision, and nothing
// is heard outside those windows. A reply may be heard as more than one
// onset: a loaded machine can stall the playback in the middle of it. A
// decision may go unheard only when the agent's reply was cut short
// before the next decision (an interrupted event: the agent yielded to an
// INT commit, and the client dropped what it had not yet played).
func checkReplies(t *testing.T, seat string, onsets, commits []float64, events []agent.ProviderEvent) {
	t.Helper()
	heard := make([]int, len(commits))
	for _, at := range onsets {
		i := len(commits) - 1
		for i >= 0 && at < decisionTime(commits[i])-0.01 {
			i--
		}
		if i < 0 {
			t.Errorf("%s: a reply heard at %.3f s, before any decision (commits %v)", seat, at, commits)
			continue
		}
		heard[i]++
	}
	for i, n := range heard {
		from, to := decisionTime(commits[i])-0.01, math.Inf(1)
		if i+1 < len(commits) {
			to = decisionTime(commits[i+1]) - 0.01
		}
		cut := slices.ContainsFunc(events, func(e agent.ProviderEvent) bool {
			return e.Kind == agent.EventInterrupted && e.Time >= from && e.Time < to
		})
		switch {
		case n == 0 && cut:
			t.Logf("%s: the reply decided at %.3f s was cut before it was heard", seat, decisionTime(commits[i]))
		case n == 0:
			t.Errorf("%s: the decision at %.3f s was not heard before the next (replies at %v)", seat, decisionTime(commits[i]), onsets)
		}
	}
}

// splitGold is the corpus's gold by split.
type splitGold map[string]*floor.GoldSet

// storedGold reads the gold of the corpus stored under its hash as a
// sweep does.
func storedGold(t *testing.T, st store.Store, hash string) splitGold {
	t.Helper()
	bc, err := (&activities.Activities{Store: st, Scratch: t.TempDir()}).LoadCorpus(context.Background(),
		activities.CorpusPlan{Name: "tiny", Prefix: keys.Corpus(hash), Hash: hash})
	if err != nil {
		t.Fatal(err)
	}
	return splitGold{"dev": bc.Dev, "test": bc.Test}
}

// checkCounts checks, per split and task, that the offline detector's
// predictions score the same at its decision times (the end of the input
// frame that completes each commit) as at its commit times: the
// streaming frame changes no count; and that the seated agent's counts in
// the bundle are those of the replies heard from it, mapped to
// predictions and scored here, independently of the sweep. With exact
// (duplex, whose channel keeps the agent's own clock) the seated counts
// must be the offline ones; over realtime it logs both: what is left
// between them is the output delay (docs/agents.md#known-answer).
func checkCounts(t *testing.T, res *bundle.Results, agentName string, gold splitGold, offline []offlineSeat, c *corpus.Corpus, exact bool) {
	t.Helper()
	i := slices.IndexFunc(res.Evaluations, func(e evaluate.Evaluation) bool { return e.System == agentName })
	if i < 0 {
		t.Fatalf("no evaluation of %s", agentName)
	}
	p := seated.DefaultParams()
	commits := func(o offlineSeat) []float64 { return o.commits }
	decisions := func(o offlineSeat) []float64 {
		var out []float64
		for _, c := range o.commits {
			out = append(out, decisionTime(c))
		}
		return out
	}
	heard := func(o offlineSeat) []float64 { return o.heard }
	for _, split := range []string{"dev", "test"} {
		counts := func(times func(offlineSeat) []float64) map[floor.Task]string {
			rows, err := score.ScoreSubmission(gold[split], offlineSubmission(t, c, split, offline, times, p), res.Protocol)
			if err != nil {
				t.Fatal(err)
			}
			out := map[floor.Task]string{}
			for _, task := range floor.Tasks {
				var sum score.Counts
				for _, r := range rows {
					sum.Add(*r.Task(task))
				}
				out[task] = fmt.Sprintf("%d/%d/%d/%d", sum.TP, sum.FN, sum.FP, sum.TN)
			}
			return out
		}
		atCommit, atDecision, atHeard := counts(commits), counts(decisions), counts(heard)
		for _, task := range floor.Tasks {
			got := bundleCounts(res.Evaluations[i], task, split)
			t.Logf("%s %s TP/FN/FP/TN: offline at θ %s, seated %s", split, task, atCommit[task], got)
			if atDecision[task] != atCommit[task] {
				t.Errorf("%s %s: offline at the decision times %s, at the commit times %s", split, task, atDecision[task], atCommit[task])
			}
			if got != atHeard[task] {
				t.Errorf("%s %s %s: the bundle says %s, the replies heard score %s", agentName, split, task, got, atHeard[task])
			}
			if exact && got != atCommit[task] {
				t.Errorf("%s %s %s: seated %s, offline at θ %s", agentName, split, task, got, atCommit[task])
			}
		}
	}
}

// offlineSubmission maps the times of a split's seats through the seated
// mapping (seated.ConversationPredictions), as the agent's onsets are
// mapped: each time is cut to the conversation's end, barge-ins read
// from the mix the agent heard.
func offlineSubmission(t *testing.T, c *corpus.Corpus, split string, offline []offlineSeat, times func(offlineSeat) []float64, p seated.Params) *score.Submission {
	t.Helper()
	convs, err := c.Conversations(split)
	if err != nil {
		t.Fatal(err)
	}
	sub := &score.Submission{}
	for _, conv := range convs {
		if conv.Unlabelled {
			continue
		}
		var so []seated.SeatOnsets
		for _, o := range offline {
			if o.seat.Conversation.ID != conv.ID {
				continue
			}
			var onsets []float64
			for _, at := range times(o) {
				onsets = append(onsets, min(at, conv.Duration))
			}
			onsets = slices.Compact(onsets)
			barge, err := seated.Barges(context.Background(), conv.ID, o.mix[:seated.InputFrames(conv, 0)*proto.FrameSamples], conv.Duration, onsets)
			if err != nil {
				t.Fatal(err)
			}
			so = append(so, seated.SeatOnsets{Speaker: o.seat.Speaker, Onsets: onsets, Barge: barge})
		}
		sub.Conversations = append(sub.Conversations, seated.ConversationPredictions(conv.ID, conv.Speakers, so, p.Refractory))
	}
	return sub
}

// bundleCounts are an evaluation's TP/FN/FP/TN on a split and task.
func bundleCounts(e evaluate.Evaluation, task floor.Task, split string) string {
	for _, r := range e.Tasks {
		if r.Task != task {
			continue
		}
		m := r.Test
		if split == "dev" {
			m = r.Dev
		}
		if m == nil {
			return "none"
		}
		return fmt.Sprintf("%d/%d/%d/%d", m.TP, m.FN, m.FP, m.TN)
	}
	return "none"
}

// seatedCounts are an agent's counts on both splits and tasks.
func seatedCounts(res *bundle.Results, agentName string) string {
	i := slices.IndexFunc(res.Evaluations, func(e evaluate.Evaluation) bool { return e.System == agentName })
	if i < 0 {
		return "not ranked"
	}
	var parts []string
	for _, split := range []string{"dev", "test"} {
		for _, task := range floor.Tasks {
			parts = append(parts, split+" "+string(task)+" "+bundleCounts(res.Evaluations[i], task, split))
		}
	}
	return strings.Join(parts, ", ")
}

// A seated agent killed in the middle of its sessions and started again:
// the sessions it dropped are played again, the sweep completes with no
// seat failed, and in every seat the killed agent's replies are heard
// where the offline detector decides, as an undisturbed agent's are.
func TestASeatedAgentKilledMidSessionIsRetried(t *testing.T) {
	h := newAgentSweeps(t)
	cfg := speakAtCommit(t)
	killed, calm := detectorServer(t, cfg, "duplex"), detectorServer(t, cfg, "duplex")
	agentYAML := func(name, url string) string {
		return fmt.Sprintf("  - {name: %s, protocol: duplex, endpoint: %q, rate: %d, concurrency: %d, seated: {speakers: [1], tail_s: %g}}\n",
			name, url, seatedRate, seatedConcurrency, seatedTail)
	}
	specYAML := `name: seated-kill
corpora:
  - {name: tiny, generate: {preset: tiny, seed: 1}}
systems:
  - {name: rms-endpointer, builtin: rms-endpointer, params: {eot_ramp_s: "2", int_ramp_s: "2"}}
agents:
` + agentYAML("killed", killed.url()) + agentYAML("calm", calm.url()) + "bootstrap: {resamples: 200, seed: 1}\n"
	go func() {
		<-killed.started // a session has just opened: the kill drops it mid-session, however fast the machine plays
		killed.stop()
		time.Sleep(time.Second)
		killed.start()
	}()
	res, _ := h.seatedSweep(specYAML)
	for _, r := range res.Seated {
		if r.Seats != 12 || len(r.Failed) != 0 {
			t.Errorf("%s: %d seats, failed %+v", r.Agent, r.Seats, r.Failed)
		}
	}
	if n := killed.sessions.Load(); n <= 12 {
		t.Errorf("the killed agent opened %d sessions for 12 seats: none was played again", n)
	}
	s, err := spec.Parse("seated.yaml", []byte(specYAML), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	s.Normalise()
	corpusHash := activities.GeneratedCorpusHash("tiny", 1, backend.Config{})
	c, err := corpus.Open(filepath.Join(h.root, keys.Corpus(corpusHash)), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range s.Agents {
		t.Run(a.Name, func(t *testing.T) {
			checkHeard(t, h.root, corpusHash, a, offlineSeats(t, c, a, cfg))
		})
	}
}
