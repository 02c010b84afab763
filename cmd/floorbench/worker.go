//go:build !floorbench_light

package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/cluster"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/temporalclient"
)

func init() { subcommands = append(subcommands, newWorkerCommand) }

func newWorkerCommand() *cobra.Command {
	var queues []string
	var healthAddr string
	cmd := &cobra.Command{
		Use:   "worker [--queues cpu,synth,gpu | --queues cpu=NAME,...]",
		Short: fullOnly["worker"],
		Long: `A worker polls the floorbench-cpu, floorbench-synth and floorbench-gpu task
queues, or those --queues names, and runs their activities; the one polling
the cpu queue also runs the workflows. It reads inputs and writes audio,
tracks and bundles only through the configured store, so it needs no file
of the machine that submitted the sweep. Started before Temporal answers
(or while it restarts), it waits and tries again with backoff (1 s
doubling to 30 s), saying so in its log and in /readyz; it exits at once
only on a configuration error.`,
		Args: cobra.NoArgs,
	}
	config := configFlags(cmd)
	cmd.Flags().StringSliceVar(&queues, "queues", []string{"cpu", "synth", "gpu"},
		"queues to poll by kind (cpu, synth, gpu: the queues of those names) or KIND=QUEUE_NAME for the names a spec's queues: section sets")
	admission := admissionFlags(cmd)
	batchRows := batchRowsFlag(cmd)
	cmd.Flags().StringVar(&healthAddr, "health-addr", os.Getenv("FLOORBENCH_HEALTH_ADDR"),
		"serve /healthz and /readyz (ready: polling, and Temporal answers) on this address, e.g. :8080 (env FLOORBENCH_HEALTH_ADDR; empty: off)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		cfg, err := config()
		if err != nil {
			return err
		}
		admission, err := admission()
		if err != nil {
			return err
		}
		names, workflowQueue, err := temporalclient.QueueNames(queues, spec.Queues{CPU: spec.QueueCPU, GPU: spec.QueueGPU, Synth: spec.QueueSynth})
		if err != nil {
			return err
		}
		if err := cfg.CheckTemporalAddress(); err != nil {
			return err
		}
		collectForSweeps()
		ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		st, err := cfg.OpenStore(ctx)
		if err != nil {
			return err
		}
		ccfg, err := cluster.ConfigFromEnv(os.LookupEnv)
		if err != nil {
			return err
		}
		capacity, err := cluster.New(ccfg, slog.Default())
		if err != nil {
			return err
		}
		state := &workerState{address: cfg.TemporalAddress}
		if healthAddr != "" {
			stopHealth, err := serveHealth(healthAddr, state.ready)
			if err != nil {
				return err
			}
			defer stopHealth()
		}
		rt := detect.RuntimeFromEnv()
		rt.Limits = cfg.Limits
		if err := batchRows(&rt); err != nil {
			return err
		}
		cl, err := temporalclient.DialWaiting(ctx, cfg, temporalclient.DefaultBackoff, slog.Default(), state.waiting)
		if err != nil {
			if ctx.Err() != nil {
				return nil // interrupted while waiting
			}
			return err
		}
		defer cl.Close()
		state.connected(cl)
		acts := &activities.Activities{Store: st, Runtime: rt, Limits: cfg.Limits, Capacity: capacity, Credentials: cfg.Credentials(), Generative: &activities.GenerativeSettings{Secrets: cfg.GenerativeSecrets()}, ScheduleRoot: cfg.ScheduleRoot, Webhooks: cfg.Webhooks()}
		ws, err := temporalclient.StartWorkers(cl, acts, names, workflowQueue, admission)
		if err != nil {
			return err
		}
		state.polling.Store(true)
		root := cfg.ScheduleRoot
		if root == "" {
			root = "none"
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "floorbench worker: polling %v at %s, store %s, memory budget %d MiB, schedule root %s\n", names, cfg.TemporalAddress, st.Describe(), admission.Memory.Bytes()>>20, root)
		<-ctx.Done()
		ws.Stop()
		return nil
	}
	return cmd
}

// workerState is what the worker's readiness says: waiting for Temporal
// (and why), connected but not yet polling, or polling and Temporal
// answers.
type workerState struct {
	address string
	mu      sync.Mutex
	cl      client.Client
	lastErr error
	polling atomic.Bool
}

func (s *workerState) waiting(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastErr = err
}

func (s *workerState) connected(cl client.Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cl = cl
}

func (s *workerState) ready(ctx context.Context) error {
	s.mu.Lock()
	cl, lastErr := s.cl, s.lastErr
	s.mu.Unlock()
	switch {
	case cl == nil && lastErr == nil:
		return &temporalclient.NotReady{Reason: "waiting for Temporal", Err: fmt.Errorf("connecting to %s", s.address)}
	case cl == nil:
		return &temporalclient.NotReady{Reason: "waiting for Temporal", Err: lastErr}
	case !s.polling.Load():
		return &temporalclient.NotReady{Reason: "workers not started"}
	}
	if _, err := cl.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		return &temporalclient.NotReady{Reason: "Temporal does not answer", Err: err}
	}
	return nil
}

// admissionFlags adds --memory-budget to cmd and returns how the command
// admits activities: a worker's slots per task queue and a memory budget
// from the flag (docs/operations.md#workers). A worker and an in-process
// sweep (submit --in-process) admit work the same way.
func admissionFlags(cmd *cobra.Command) func() (activities.Admission, error) {
	var memory string
	cmd.Flags().StringVar(&memory, "memory-budget", os.Getenv("FLOORBENCH_MEMORY_BUDGET"),
		"memory detection and evaluation steps may hold at once, e.g. 4GiB (env FLOORBENCH_MEMORY_BUDGET; default: half the container's or machine's memory)")
	return func() (activities.Admission, error) {
		budget := activities.DefaultMemoryBytes()
		if memory != "" {
			var err error
			if budget, err = activities.ParseBytes(memory); err != nil {
				return activities.Admission{}, fmt.Errorf("--memory-budget: %w", err)
			}
		}
		return activities.Admission{Slots: activities.ActivitySlots(), Memory: activities.NewMemoryBudget(budget)}, nil
	}
}

// batchRowsFlag adds --batch-rows to cmd and returns how it sets a
// runtime's rows per ONNX session call (docs/operations.md#model-batches).
func batchRowsFlag(cmd *cobra.Command) func(*detect.Runtime) error {
	var rows string
	cmd.Flags().StringVar(&rows, "batch-rows", os.Getenv("FLOORBENCH_BATCH_ROWS"),
		"speaker channels an ONNX model runs per session call, across conversations (env FLOORBENCH_BATCH_ROWS; default 64 on the CPU, 1024 on CUDA)")
	return func(rt *detect.Runtime) error {
		if rows == "" {
			return nil
		}
		n, err := strconv.Atoi(rows)
		if err != nil || n < 1 || n > 1<<16 {
			return fmt.Errorf("--batch-rows: want a whole number from 1 to 65536, got %q", rows)
		}
		rt.BatchRows = n
		return nil
	}
}

// serveHealth serves the worker's probes on addr until the returned stop.
func serveHealth(addr string, ready func(context.Context) error) (stop func(), err error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--health-addr: %w", err)
	}
	srv := &http.Server{Handler: temporalclient.HealthHandler(ready, slog.Default()), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return func() { _ = srv.Close() }, nil
}
