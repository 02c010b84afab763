package seated

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/agent/refagent"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/testenv"
)

// testTail is the silence these tests send after each conversation: long
// enough that a reply decided at a conversation's end is heard.
const testTail = 2.0

// realtimeLagBound is the largest delay from a decision to its reply's
// onset, as the VAD hears it on its 10 ms grid, of a reply that arrived
// within the streaming frame (20 ms) after its decision.
const realtimeLagBound = 0.010

// offlineSeat is the offline detector on one seat: its EOT commits on
// what the seated agent heard, and the frames in which a server hears
// each commit's last sample.
type offlineSeat struct {
	seat    Seat
	mix     []float32
	heard   []float32
	commits []float64
}

// decisionFrame is the input frame in which a server of the protocol has
// heard every sample of a score frame that commits at c: the reference
// agent decides after it and speaks from the next frame on, at
// (frame+1)·20 ms of the conversation's audio, whatever the protocol.
func decisionFrame(c float64) int {
	samples := int(math.Round(c * proto.SampleRate))
	return (samples+proto.FrameSamples-1)/proto.FrameSamples - 1
}

// decisionTime is when, in the conversation's audio, the reference agent
// starts to speak for a commit at c.
func decisionTime(c float64) float64 {
	return float64((decisionFrame(c)+1)*proto.FrameSamples) / proto.SampleRate
}

// offlineSeats runs the detector whole-file over exactly what each seated
// agent heard (proto.HeardInput of its mix: the conversation and the
// tail) and commits its speaker-1 EOT track at the frozen threshold.
func offlineSeats(t *testing.T, c *corpus.Corpus, seats []Seat, protocol string, cfg refagent.Config, tail float64) []offlineSeat {
	t.Helper()
	d, err := cfg.Detector.System.Open(cfg.Detector.Runtime)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var out []offlineSeat
	for _, s := range seats {
		channels, err := c.Channels16k(s.Conversation)
		if err != nil {
			t.Fatal(err)
		}
		mix := Mix(channels, s.Speaker, InputFrames(s.Conversation, tail))
		heard, err := proto.HeardInput(protocol, mix)
		if err != nil {
			t.Fatal(err)
		}
		scores, err := d.Detect(context.Background(), &detect.Conversation{ID: s.Conversation.ID, SampleRate: proto.SampleRate,
			Duration: float64(len(heard)) / proto.SampleRate, Channels: [][]float32{heard, make([]float32, len(heard))}})
		if err != nil {
			t.Fatal(err)
		}
		commits := score.CommitTimes(scores.EOT[0], scores.FrameRate, cfg.Detector.Threshold, cfg.Detector.Refractory)
		out = append(out, offlineSeat{seat: s, mix: mix, heard: heard, commits: commits})
	}
	return out
}

// offlineSubmission maps the offline commits, each moved by at, through
// the seated mapping, for the conversations of convs.
func offlineSubmission(t *testing.T, convs []corpus.Conversation, seats []offlineSeat, at func(float64) float64, p Params) *score.Submission {
	t.Helper()
	sub := &score.Submission{}
	for _, conv := range convs {
		var so []SeatOnsets
		for _, s := range seats {
			if s.seat.Conversation.ID != conv.ID {
				continue
			}
			var times []float64
			for _, c := range s.commits {
				times = append(times, min(at(c), conv.Duration)) // as Onsets ends them
			}
			times = slices.Compact(times)
			barge, err := Barges(context.Background(), conv.ID, s.mix, conv.Duration, times)
			if err != nil {
				t.Fatal(err)
			}
			so = append(so, SeatOnsets{Speaker: s.seat.Speaker, Onsets: times, Barge: barge})
		}
		sub.Conversations = append(sub.Conversations, ConversationPredictions(conv.ID, conv.Speakers, so, p.Refractory))
	}
	return sub
}

// TestSeatedReferenceAgentDecidesAsTheOfflineDetector is the known answer
// of docs/agents.md#seated-agents. The reference agent, speaking a short
// reply at each EOT commit of rms-endpointer at a frozen threshold, is
// seated in every seat of the tiny corpus (its dev split with -short)
// over each protocol, the sessions in real time on the fake clock of a
// testing/synctest bubble, so that no load can stall a reply. Then:
//
//   - it decides exactly where the offline detector commits on what it
//     heard: after the input frame that completes each commit, no other;
//   - every decision is heard once from its output audio, at or after the
//     decision (less the VAD's 10 ms grid) and before the next one;
//   - the offline predictions at the decision times score exactly as at
//     the commit times (the same TP, FN, FP and TN per conversation and
//     task under both negative windows): the streaming frame changes no
//     count;
//   - over duplex, the seated predictions score exactly as the offline
//     ones (the same TP, FN, FP and TN per split and task);
//   - over realtime too: every reply arrives within the streaming frame
//     after its decision (heard in the VAD frame of the decision or the
//     next), since the input's priming lets the server decide on the
//     append of the frame that completes a commit, as over duplex, and a
//     realtime client plays a reply when it arrives.
func TestSeatedReferenceAgentDecidesAsTheOfflineDetector(t *testing.T) {
	c := tinyCorpus(t)
	cfg := detectorConfig(t)
	p := DefaultParams()
	split := ""
	if testing.Short() {
		split = "dev"
	}
	for _, protocol := range proto.Protocols() {
		t.Run(protocol, func(t *testing.T) {
			out := t.TempDir()
			var job Job
			var log *decisionLog
			testenv.Synctest(t, func(t *testing.T) {
				var ep proto.Endpoint
				ep, log = serveReference(t, cfg, protocol)
				o := DefaultOptions("reference-detector", ep)
				o.Concurrency, o.Backoff, o.Tail = 8, 10*time.Millisecond, testTail
				job = Job{Corpus: c, Split: split, Options: o, Params: p, Out: out}
				start := time.Now()
				res, err := job.Run(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				// One at a time the sessions would take at least the sum of
				// their conversations and tails, on the bubble's clock as on
				// the wall.
				seats, _ := job.Seats()
				var played time.Duration
				for _, st := range seats {
					played += time.Duration((st.Conversation.Duration + o.Tail) * float64(time.Second))
				}
				took := time.Since(start)
				if took >= played {
					t.Errorf("%d sessions at concurrency %d took %v, the sum of their lengths %v: they did not overlap", res.Seats, o.Concurrency, took, played)
				}
				t.Logf("%d sessions in %v of session time (%v one at a time)", res.Seats, took, played)
			})
			if t.Failed() {
				t.FailNow()
			}
			seats, _ := job.Seats()
			offline := offlineSeats(t, c, seats, protocol, cfg, job.Options.Tail)
			var lags []float64
			for _, s := range offline {
				checkDecisions(t, s, log)
				l, missed := heardOnce(t, s, job.Out, p)
				lags = append(lags, l...)
				for _, m := range missed {
					t.Error(m)
				}
			}
			slices.Sort(lags)
			if len(lags) > 0 {
				t.Logf("output delay (heard onset - decision): min %.0f ms, median %.0f ms, max %.0f ms over %d replies",
					1000*lags[0], 1000*lags[len(lags)/2], 1000*lags[len(lags)-1], len(lags))
				if lags[len(lags)-1] > realtimeLagBound+1e-9 {
					t.Errorf("a reply was heard %.0f ms after its decision, past the streaming frame", 1000*lags[len(lags)-1])
				}
			}
			for _, sp := range job.splits() {
				compareScores(t, c, sp, offline, filepath.Join(job.Out, PredictionsName(sp)), p)
			}
		})
	}
}

// checkDecisions compares the agent's decisions in one seat with the
// frames that complete the offline commits.
func checkDecisions(t *testing.T, s offlineSeat, log *decisionLog) {
	t.Helper()
	log.mu.Lock()
	got, ok := log.byInput[hearing(s.heard)]
	log.mu.Unlock()
	if !ok {
		t.Errorf("%s: no session of the agent heard exactly proto.HeardInput of the seat's mix", s.seat.Name())
		return
	}
	var want []int
	for _, c := range s.commits {
		want = append(want, decisionFrame(c))
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: the agent spoke after input frames %v; the offline commits %v are completed in frames %v", s.seat.Name(), got, s.commits, want)
	}
}

// heardOnce checks, in one seat, that every decision of the agent is
// heard and that nothing is heard that it did not decide: each decision's
// stretch, from it to the next one (less the VAD's 10 ms grid, which
// places an onset at its frame's start), holds at least one onset, and no
// onset comes before the first decision. It returns each decision's delay
// to its first onset, and the first decision never heard.
func heardOnce(t *testing.T, s offlineSeat, out string, p Params) (lags []float64, unheard []string) {
	t.Helper()
	dir := filepath.Join(out, SessionsDir, s.seat.Name())
	r, err := ReadRecording(dir)
	if err != nil {
		t.Fatal(err)
	}
	output, err := r.ReadOutput(dir)
	if err != nil {
		t.Fatal(err)
	}
	var onsets []float64
	for _, seg := range p.VAD.Segments(output) {
		onsets = append(onsets, seg.Onset)
	}
	const grid = 0.010
	next := 0
	for i, c := range s.commits {
		at, end := decisionTime(c), math.Inf(1)
		if i+1 < len(s.commits) {
			end = decisionTime(s.commits[i+1])
		}
		if next < len(onsets) && onsets[next] < at-grid {
			t.Errorf("%s: heard the agent at %.3f s, before its decision at %.3f s", s.seat.Name(), onsets[next], at)
			return nil, nil
		}
		if next == len(onsets) || onsets[next] >= end-grid {
			return lags, []string{fmt.Sprintf("%s: the decision at %.3f s was never heard (onsets %v)", s.seat.Name(), at, onsets)}
		}
		lags = append(lags, onsets[next]-at)
		for next < len(onsets) && onsets[next] < end-grid {
			next++
		}
	}
	if next < len(onsets) || (len(s.commits) == 0 && len(onsets) > 0) {
		t.Errorf("%s: heard onsets %v for decisions at %v", s.seat.Name(), onsets, s.commits)
	}
	return lags, nil
}

// compareScores scores one split's offline predictions at the commit and
// at the decision times, which must agree exactly, and the seated run's
// score, which must be the offline one too: a reply is heard in the frame
// after its decision.
func compareScores(t *testing.T, c *corpus.Corpus, split string, offline []offlineSeat, seatedFile string, p Params) {
	t.Helper()
	gold, err := corpus.Gold(c.Dir, split, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	convs, _ := c.Conversations(split)
	seated, err := score.ReadSubmission(seatedFile, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	atCommit := scoreOf(t, gold, offlineSubmission(t, convs, offline, func(c float64) float64 { return c }, p))
	atDecision := scoreOf(t, gold, offlineSubmission(t, convs, offline, decisionTime, p))
	heard := scoreOf(t, gold, seated)
	for i := range atCommit {
		for _, task := range floor.Tasks {
			a, b := atCommit[i].Task(task), atDecision[i].Task(task)
			if a.TP != b.TP || a.FN != b.FN || a.FP != b.FP || a.TN != b.TN || a.Windows != b.Windows {
				t.Errorf("%s %s: at the commits TP %d FN %d FP %d TN %d %+v, at the decisions TP %d FN %d FP %d TN %d %+v",
					atCommit[i].ID, task, a.TP, a.FN, a.FP, a.TN, a.Windows, b.TP, b.FN, b.FP, b.TN, b.Windows)
			}
		}
	}
	for _, task := range floor.Tasks {
		o, h := total(atCommit, task), total(heard, task)
		if o.TP != h.TP || o.FN != h.FN || o.FP != h.FP || o.TN != h.TN {
			t.Errorf("%s %s: offline TP %d FN %d FP %d TN %d, seated TP %d FN %d FP %d TN %d", split, task, o.TP, o.FN, o.FP, o.TN, h.TP, h.FN, h.FP, h.TN)
		}
		t.Logf("%s %s: offline TP %d FN %d FP %d TN %d; seated TP %d FN %d FP %d TN %d", split, task, o.TP, o.FN, o.FP, o.TN, h.TP, h.FN, h.FP, h.TN)
	}
}

func scoreOf(t *testing.T, gold *floor.GoldSet, sub *score.Submission) []score.ConversationCounts {
	t.Helper()
	rows, err := score.ScoreSubmission(gold, sub, score.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func total(rows []score.ConversationCounts, task floor.Task) score.Counts {
	var out score.Counts
	for i := range rows {
		out.Add(*rows[i].Task(task))
	}
	return out
}
