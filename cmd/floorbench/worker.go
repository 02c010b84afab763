package main

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/cluster"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/orchestrate"
	"github.com/floorbench/floorbench/internal/spec"
)

func init() { subcommands = append(subcommands, newWorkerCommand) }

func newWorkerCommand() *cobra.Command {
	var queues []string
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
		acts := &activities.Activities{Store: st, Runtime: detect.RuntimeFromEnv(), Capacity: capacity}
		ws, err := orchestrate.StartWorkers(cl, acts, names, spec.QueueCPU)
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "floorbench worker: polling %v at %s, store %s\n", names, cfg.TemporalAddress, st.Describe())
		<-ctx.Done()
		ws.Stop()
		return nil
	}
	return cmd
}
