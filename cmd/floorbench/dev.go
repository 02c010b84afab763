//go:build !floorbench_light

package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/devserver"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/temporalclient"
)

func init() { subcommands = append(subcommands, newDevCommand) }

// devInfo is what `dev -o json` prints once the server and worker run.
type devInfo struct {
	TemporalAddress string            `json:"temporal_address"`
	Namespace       string            `json:"namespace"`
	Database        string            `json:"database"`
	Queues          []string          `json:"queues"`
	Store           string            `json:"store"`
	Env             map[string]string `json:"env"`
}

func newDevCommand() *cobra.Command {
	var output, dir, address string
	cmd := &cobra.Command{
		Use:   "dev [--temporal-address 127.0.0.1:7233] [--dir DIR]",
		Short: fullOnly["dev"],
		Long: `Dev starts the pinned Temporal dev server (scripts/setup.sh temporal; its
database kept in --dir, so sweeps survive a restart) and one in-process
worker on every queue, over the configured store, and runs until
interrupted. It prints how to point submit, status and watch at them: with
the defaults (Temporal at 127.0.0.1:7233, the local store) nothing needs
setting. For the distributed path without a cluster.`,
		Args: cobra.NoArgs,
	}
	config := storeFlags(cmd)
	outputFlag(cmd, &output, statusFormats)
	cache, _ := os.UserCacheDir()
	cmd.Flags().StringVar(&address, "temporal-address", "127.0.0.1:7233", "loopback host:port the dev server listens on")
	cmd.Flags().StringVar(&dir, "dir", filepath.Join(cache, "floorbench", "dev"), "folder of the dev server's database and log")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		cfg, err := config()
		if err != nil {
			return err
		}
		if host, _, err := net.SplitHostPort(address); err != nil || (host != "127.0.0.1" && host != "localhost") {
			return fmt.Errorf("--temporal-address %q: want 127.0.0.1:PORT (the dev server listens on loopback only)", address)
		}
		if l, err := net.Listen("tcp", address); err != nil {
			return fmt.Errorf("--temporal-address %s: %v (another Temporal running? stop it, or give another port)", address, err)
		} else {
			l.Close()
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("--dir %s: %w", dir, err)
		}
		ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		rt := detect.RuntimeFromEnv()
		rt.Limits = cfg.Limits
		srv, err := devserver.New(devserver.TemporalCLI(rt.Tools), dir, true)
		if err != nil {
			return err
		}
		srv.Address = address
		if err := srv.Start(ctx); err != nil {
			return err
		}
		defer srv.Stop()
		cfg = cfg.DevServer(srv.Address)
		st, err := cfg.OpenStore(ctx)
		if err != nil {
			return err
		}
		cl, err := temporalclient.Dial(ctx, cfg)
		if err != nil {
			return err
		}
		defer cl.Close()
		queues := []string{spec.QueueCPU, spec.QueueSynth, spec.QueueGPU}
		acts := &activities.Activities{Store: st, Runtime: rt, Limits: cfg.Limits, Credentials: cfg.Credentials(), Generative: &activities.GenerativeSettings{Secrets: cfg.GenerativeSecrets()}, ScheduleRoot: cfg.ScheduleRoot, Webhooks: cfg.Webhooks()}
		ws, err := temporalclient.StartWorkers(cl, acts, queues, spec.QueueCPU, activities.DefaultAdmission())
		if err != nil {
			return err
		}
		defer ws.Stop()
		info := devInfo{TemporalAddress: srv.Address, Namespace: cfg.Namespace, Database: srv.DBFile, Queues: queues, Store: st.Describe(),
			Env: map[string]string{"FLOORBENCH_TEMPORAL_ADDRESS": srv.Address, "FLOORBENCH_TEMPORAL_NAMESPACE": cfg.Namespace}}
		if cfg.S3Endpoint == "" {
			info.Env["FLOORBENCH_STORE_DIR"] = cfg.StoreDir
		} else {
			info.Env["FLOORBENCH_S3_ENDPOINT"], info.Env["FLOORBENCH_S3_BUCKET"] = cfg.S3Endpoint, cfg.S3Bucket
		}
		if err := printDevInfo(cmd, info, output); err != nil {
			return err
		}
		<-ctx.Done()
		fmt.Fprintln(cmd.ErrOrStderr(), "floorbench dev: stopping the worker and the dev server")
		return nil
	}
	return cmd
}

func printDevInfo(cmd *cobra.Command, info devInfo, output string) error {
	out := cmd.OutOrStdout()
	if output == "json" {
		return writeJSON(out, info)
	}
	fmt.Fprintf(out, "Temporal dev server on %s (database %s); worker polling %v; store %s\n",
		info.TemporalAddress, info.Database, info.Queues, info.Store)
	fmt.Fprintln(out, "In another shell (not needed with the defaults):")
	fmt.Fprint(out, "  export")
	for _, k := range []string{"FLOORBENCH_TEMPORAL_ADDRESS", "FLOORBENCH_TEMPORAL_NAMESPACE", "FLOORBENCH_STORE_DIR", "FLOORBENCH_S3_ENDPOINT", "FLOORBENCH_S3_BUCKET"} {
		if v, ok := info.Env[k]; ok {
			fmt.Fprintf(out, " %s=%s", k, v)
		}
	}
	fmt.Fprintln(out, "\n  floorbench submit sweep.yaml --wait\nCtrl-C stops both.")
	return nil
}
