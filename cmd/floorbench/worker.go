package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/cluster"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/orchestrate"
	"github.com/floorbench/floorbench/internal/spec"
)

func init() { subcommands = append(subcommands, newWorkerCommand) }

func newWorkerCommand() *cobra.Command {
	var queues []string
	var healthAddr string
	cmd := &cobra.Command{
		Use:   "worker [--queues cpu,synth,gpu]",
		Short: "Run a Temporal worker for floorbench's task queues until interrupted",
		Long: `A worker polls the floorbench-cpu, floorbench-synth and floorbench-gpu task
queues (DESIGN §7) and runs their activities; the one polling cpu also runs
the workflows. Audio, tracks and bundles go to the configured store.`,
		Args: cobra.NoArgs,
	}
	config := configFlags(cmd)
	cmd.Flags().StringSliceVar(&queues, "queues", []string{"cpu", "synth", "gpu"}, "queues to poll: cpu, synth, gpu")
	cmd.Flags().StringVar(&healthAddr, "health-addr", os.Getenv("FLOORBENCH_HEALTH_ADDR"),
		"serve /healthz and /readyz (ready: polling, and Temporal answers) on this address, e.g. :8080 (env FLOORBENCH_HEALTH_ADDR; empty: off)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		cfg, err := config()
		if err != nil {
			return err
		}
		names, err := orchestrate.QueueNames(queues, spec.Queues{CPU: spec.QueueCPU, GPU: spec.QueueGPU, Synth: spec.QueueSynth})
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		st, err := cfg.OpenStore(ctx)
		if err != nil {
			return err
		}
		cl, err := cfg.Dial(ctx)
		if err != nil {
			return err
		}
		defer cl.Close()
		ccfg, err := cluster.ConfigFromEnv(os.LookupEnv)
		if err != nil {
			return err
		}
		capacity, err := cluster.New(ccfg, slog.Default())
		if err != nil {
			return err
		}
		var polling atomic.Bool
		if healthAddr != "" {
			stopHealth, err := serveHealth(healthAddr, func(ctx context.Context) error {
				if !polling.Load() {
					return errors.New("workers not started")
				}
				_, err := cl.CheckHealth(ctx, &client.CheckHealthRequest{})
				return err
			})
			if err != nil {
				return err
			}
			defer stopHealth()
		}
		acts := &activities.Activities{Store: st, Runtime: detect.RuntimeFromEnv(), Capacity: capacity}
		ws, err := orchestrate.StartWorkers(cl, acts, names, spec.QueueCPU)
		if err != nil {
			return err
		}
		polling.Store(true)
		fmt.Fprintf(cmd.ErrOrStderr(), "floorbench worker: polling %v at %s, store %s\n", names, cfg.TemporalAddress, st.Describe())
		<-ctx.Done()
		ws.Stop()
		return nil
	}
	return cmd
}

// serveHealth serves the worker's probes on addr until the returned stop.
func serveHealth(addr string, ready func(context.Context) error) (stop func(), err error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--health-addr: %w", err)
	}
	srv := &http.Server{Handler: orchestrate.HealthHandler(ready, slog.Default()), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return func() { _ = srv.Close() }, nil
}
