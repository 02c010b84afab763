//go:build !floorbench_light

package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/viewer"
)

func init() { subcommands = append(subcommands, newServeCommand) }

func newServeCommand() *cobra.Command {
	var addr string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: fullOnly["serve"],
		Long: `Serve lists the bundles of the configured store (local or S3) and shows
each one's leaderboards, sim-to-real table, operating points and figures,
an event browser with each event's timeline and audio, and a diff of two
bundles. It only reads the store. It listens on loopback unless --addr
says otherwise; it has no login, so expose it only where every reader
may see every bundle.`,
		Args: cobra.NoArgs,
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (host:port)")
	return withStoreLimits(cmd, func(ctx context.Context, st store.Store, lim limits.Limits, _ []string) error {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("--addr: %w", err)
		}
		srv := &http.Server{Handler: viewer.New(st, log.New(cmd.ErrOrStderr(), "floorbench: ", 0), lim), ReadHeaderTimeout: 10 * time.Second}
		fmt.Fprintf(cmd.OutOrStdout(), "serving %s at http://%s/\n", st.Describe(), l.Addr())
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		go func() {
			<-ctx.Done()
			shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(shutdown)
		}()
		if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
}
