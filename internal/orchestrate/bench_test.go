package orchestrate_test

import (
	"context"
	"testing"
	"time"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/orchestrate"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/testenv"
)

// BenchmarkOrchestrationOverhead runs the quickstart sweep (tiny corpus,
// rms, webrtcvad and silero) twice per iteration from an empty local
// store: once with the activities called in process, once through a real
// Temporal dev server and an in-process worker. It reports both wall times
// and Temporal's overhead in percent.
func BenchmarkOrchestrationOverhead(b *testing.B) {
	ctx := context.Background()
	srv, err := orchestrate.NewDevServer(testenv.Tool(b, "temporal", "temporal"), b.TempDir(), false)
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer srv.Stop()
	rt := detect.RuntimeFromEnv()
	var local, viaTemporal time.Duration
	for i := range b.N {
		s, err := spec.Parse("quickstart", []byte(orchestrate.QuickstartSpec))
		if err != nil {
			b.Fatal(err)
		}
		s.Name = "overhead-" + string(rune('a'+i%26)) // a new workflow id per iteration
		in, err := orchestrate.Resolve(s, rt)
		if err != nil {
			b.Fatal(err)
		}
		st, err := store.NewLocal(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := orchestrate.RunInProcess(ctx, in, &activities.Activities{Store: st, Runtime: rt}); err != nil {
			b.Fatal(err)
		}
		local += time.Since(start)

		st, err = store.NewLocal(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		cfg := orchestrate.Config{TemporalAddress: srv.Address, Namespace: "default"}
		cl, err := cfg.Dial(ctx)
		if err != nil {
			b.Fatal(err)
		}
		q := in.Spec.Queues
		ws, err := orchestrate.StartWorkers(cl, &activities.Activities{Store: st, Runtime: rt}, []string{q.CPU, q.Synth, q.GPU}, q.CPU)
		if err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		run, err := orchestrate.Submit(ctx, cl, in)
		if err == nil {
			err = run.Get(ctx, nil)
		}
		viaTemporal += time.Since(start)
		ws.Stop()
		cl.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(local.Seconds()/float64(b.N), "s-in-process")
	b.ReportMetric(viaTemporal.Seconds()/float64(b.N), "s-temporal")
	b.ReportMetric(100*(viaTemporal.Seconds()-local.Seconds())/local.Seconds(), "%overhead")
}
