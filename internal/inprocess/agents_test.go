package inprocess_test

import (
	"context"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/inprocess"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep/sweepfixture"
	"github.com/floorbench/floorbench/internal/testenv"
	"github.com/floorbench/floorbench/workflows"
)

// hangUp is an endpoint on 127.0.0.1 that accepts every connection and
// closes it at once; it counts the connections.
func hangUp(t *testing.T) (addr string, connections *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	connections = new(atomic.Int64)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			connections.Add(1)
			c.Close()
		}
	}()
	return l.Addr().String(), connections
}

// An agent whose endpoint hangs up on every connection, playing trials
// and seated in a corpus, costs the sweep nothing but its own rows: each
// trial and each seat is tried the workflow's number of times, recorded
// as failed with the session's error, and the sweep still ends in a
// bundle with the systems' evaluations and the agent's failed counts.
func TestAnAgentThatHangsUpIsRecordedAsFailed(t *testing.T) {
	testenv.Program(t, "espeak-ng", "speech")
	ctx := context.Background()
	_, dirs := sweepfixture.Spec(t)
	addr, connections := hangUp(t)
	specYAML := "name: refused\ncorpora:\n  - {name: withdev, path: " + dirs[0] + "}\nsystems:\n  - {name: rms, builtin: rms}\n" +
		"agents:\n  - name: gone\n    protocol: duplex\n    endpoint: ws://" + addr + "/\n    concurrency: 16\n    repeats: 1\n" +
		"    scenarios: {preset: tiny-agent, seed: 1}\n    seated: {speakers: [1]}\nbootstrap: {resamples: 10, seed: 1}\n"
	in := sweepfixture.Resolved(t, specYAML)
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	id, err := inprocess.Run(ctx, in, &activities.Activities{Store: st, Scratch: t.TempDir()}, activities.Admission{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := bundle.ReadResults(ctx, st, id)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Evaluations, func(e evaluate.Evaluation) bool { return e.System == "rms" && e.Corpus == "withdev" }) {
		t.Errorf("no evaluation of rms on withdev among %d", len(res.Evaluations))
	}
	endpoint := "duplex agent at ws://" + addr + "/"
	if res.Agents == nil || len(res.Agents.Agents) != 1 || len(res.Agents.Trials) == 0 {
		t.Fatalf("agents %+v", res.Agents)
	}
	trials := len(res.Agents.Trials)
	if a := res.Agents.Agents[0]; a.Agent != "gone" || a.Trials != trials || a.Errors != trials {
		t.Errorf("agent %s: %d trials, %d failed; want all %d failed", a.Agent, a.Trials, a.Errors, trials)
	}
	for _, tr := range res.Agents.Trials {
		if tr.Outcome != "error" || !strings.Contains(tr.Error, endpoint) {
			t.Errorf("trial %s: %s %q", tr.ScenarioID, tr.Outcome, tr.Error)
		}
	}
	if len(res.Seated) != 1 || res.Seated[0].Seats == 0 || len(res.Seated[0].Failed) != res.Seated[0].Seats {
		t.Fatalf("seated %+v", res.Seated)
	}
	for _, f := range res.Seated[0].Failed {
		if !strings.Contains(f.Error, endpoint) {
			t.Errorf("seat %s/%d: %q", f.Conversation, f.Seat, f.Error)
		}
	}
	seats := res.Seated[0].Seats
	if got, want := connections.Load(), int64(workflows.TrialAttempts*trials+workflows.SeatAttempts*seats); got != want {
		t.Errorf("%d connections for %d trials and %d seats, want %d", got, trials, seats, want)
	}
}
