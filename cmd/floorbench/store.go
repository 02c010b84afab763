//go:build !floorbench_light

package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
)

func init() { subcommands = append(subcommands, newStoreCommand) }

func newStoreCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: fullOnly["store"],
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newStoreVerifyCommand(), newStoreInitCommand())
	return cmd
}

func newStoreInitCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create the configured S3 bucket unless it exists",
		Long: `Init creates the configured bucket (s3_bucket at s3_endpoint) unless it
exists. No other command creates one: a bucket that does not exist is an
error naming it, never an empty store.`,
		Example: "  FLOORBENCH_S3_ENDPOINT=127.0.0.1:9000 FLOORBENCH_S3_BUCKET=floorbench floorbench store init",
		Args:    cobra.NoArgs,
	}
	config := storeFlags(cmd)
	return withServices(cmd, config, func(sv *services, _ []string) error {
		cfg, err := sv.Config()
		if err != nil {
			return err
		}
		st, err := cfg.InitStore(sv.ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s: ready\n", st.Describe())
		return nil
	})
}

func newStoreVerifyCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "verify [PREFIX]",
		Short: "Check every stored object against the hash that names it or was recorded for it",
		Long: `Reads every object under PREFIX (default: the whole store) and checks it
against what names it: each corpus file against the sha256 its corpus.json
records, each corpus.json against the hash its key names and, for a
generated corpus, the sha256 recorded when it was stored; uploaded inputs
and scheduled specs against the SHA-256 their keys name; tracks,
evaluations, audits, bundles and run records against the sha256 recorded
when they were stored. Prints one line per object that does not match,
naming its key. Objects stored without a recorded sha256 (by an older
floorbench) are counted, not checked. Exit status: 0 when everything
matches, 1 when an object does not, 2 on an error.`,
		Example: "  floorbench store verify\n  floorbench store verify corpora/\n  floorbench store verify bundles/ -o json",
		Args:    cobra.MaximumNArgs(1),
	}
	outputFlag(cmd, &output, statusFormats)
	cmd = withStoreLimits(cmd, func(ctx context.Context, st store.Store, lim limits.Limits, args []string) error {
		prefix := ""
		if len(args) == 1 {
			prefix = args[0]
		}
		r, err := activities.VerifyStore(ctx, st, prefix, lim)
		if err != nil {
			return err
		}
		if output == "json" {
			if err := writeJSON(cmd.OutOrStdout(), r); err != nil {
				return err
			}
		} else {
			for _, p := range r.Problems {
				fmt.Fprintln(cmd.OutOrStdout(), p)
			}
		}
		where := r.Prefix
		if where == "" {
			where = st.Describe()
		}
		if len(r.Problems) > 0 {
			return exitError{1, fmt.Errorf("%s: %d of %d objects do not match their manifests, keys or recorded sha256", where, len(r.Problems), r.Objects)}
		}
		if output != "json" {
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d objects match (%d corpora; not checked: %d unfinished corpora, %d objects without a recorded sha256)\n",
				where, r.Objects, r.Corpora, len(r.Unfinished), len(r.Unrecorded))
		}
		return nil
	})
	// Every failure other than a mismatch exits 2.
	return withExitCode(cmd, 2)
}
