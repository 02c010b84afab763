package temporalclient_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/devserver"
	"github.com/floorbench/floorbench/internal/inprocess"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/quickstart"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/temporalclient"
	"github.com/floorbench/floorbench/internal/testenv"
)

// BenchmarkOrchestrationOverhead runs the quickstart sweep (tiny corpus,
// the rms, webrtcvad and silero gates, the rms and silero endpointers)
// twice per iteration from an empty local store: once with the activities
// called in process, once through a real Temporal dev server and an
// in-process worker, both admitting work alike (DefaultAdmission), in
// turns (-benchtime 2x runs each path once first). It
// reports both wall times and Temporal's overhead in percent, with the CPU
// time the dev server and this process (detectors and worker) spent on
// each path, to tell server work from worker work.
//
// FLOORBENCH_BENCH_SPEC=FILE runs that sweep spec instead (its corpora
// given by path): scripts/growth.sh measures how the overhead grows with
// the corpus and the number of systems this way.
func BenchmarkOrchestrationOverhead(b *testing.B) {
	name, text := "quickstart", []byte(quickstart.Spec)
	if f := os.Getenv("FLOORBENCH_BENCH_SPEC"); f != "" {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		name, text = f, data
	}
	ctx := context.Background()
	srv, err := devserver.New(testenv.Tool(b, "temporal", "temporal"), b.TempDir(), false)
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer srv.Stop()
	rt := detect.RuntimeFromEnv()
	// Both paths admit work as a worker does by default: the same slots
	// per task queue and the same memory budget.
	admission := activities.DefaultAdmission()
	var local, viaTemporal, serverCPU, localCPU, temporalCPU time.Duration
	// b.Loop runs -benchtime Nx exactly N times in one call; a loop over
	// b.N is first called once with N=1, which at full size costs a
	// third more time for RUNS=2 and starts a second dev server.
	n := 0
	for b.Loop() {
		i := n
		n++
		s, err := spec.Parse(name, text, limits.Default())
		if err != nil {
			b.Fatal(err)
		}
		s.Name = "overhead-" + string(rune('a'+i%26)) // a new workflow id per iteration
		in, err := sweep.Resolve(s, rt)
		if err != nil {
			b.Fatal(err)
		}
		inProcess := func() {
			st, err := store.NewLocal(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			start, cpu := time.Now(), selfCPU(b)
			if _, err := inprocess.Run(ctx, in, &activities.Activities{Store: st, Runtime: rt}, admission); err != nil {
				b.Fatal(err)
			}
			local += time.Since(start)
			localCPU += selfCPU(b) - cpu
		}
		throughTemporal := func() {
			st, err := store.NewLocal(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			cfg := config.Config{TemporalAddress: srv.Address, Namespace: "default"}
			cl, err := temporalclient.Dial(ctx, cfg)
			if err != nil {
				b.Fatal(err)
			}
			q := in.Spec.Queues
			ws, err := temporalclient.StartWorkers(cl, &activities.Activities{Store: st, Runtime: rt}, []string{q.CPU, q.Synth, q.GPU}, q.CPU, admission)
			if err != nil {
				b.Fatal(err)
			}
			start, cpu, srvCPU := time.Now(), selfCPU(b), processCPU(b, srv.PID())
			run, err := temporalclient.Submit(ctx, cl, in)
			if err == nil {
				err = run.Get(ctx, nil)
			}
			viaTemporal += time.Since(start)
			temporalCPU += selfCPU(b) - cpu
			serverCPU += processCPU(b, srv.PID()) - srvCPU
			ws.Stop()
			cl.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
		// Odd iterations run Temporal first, so that with an even count
		// neither path always meets a cold page cache or a warm one.
		if i%2 == 0 {
			inProcess()
			throughTemporal()
		} else {
			throughTemporal()
			inProcess()
		}
	}
	b.ReportMetric(local.Seconds()/float64(n), "s-in-process")
	b.ReportMetric(viaTemporal.Seconds()/float64(n), "s-temporal")
	b.ReportMetric(100*(viaTemporal.Seconds()-local.Seconds())/local.Seconds(), "%overhead")
	b.ReportMetric(localCPU.Seconds()/float64(n), "cpu-s-in-process")
	b.ReportMetric(temporalCPU.Seconds()/float64(n), "cpu-s-worker")
	b.ReportMetric(serverCPU.Seconds()/float64(n), "cpu-s-server")
}

// selfCPU is this process's user and system CPU time so far.
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processCPU is a process's user and system CPU time so far, from
// /proc/<pid>/stat (fields 14 and 15, in clock ticks of 1/100 s).
func processCPU(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	utime, err1 := strconv.Atoi(fields[11])
	stime, err2 := strconv.Atoi(fields[12])
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %q", pid, data)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
