package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/store"
)

func init() { subcommands = append(subcommands, newStoreCommand) }

func newStoreCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Inspect the store",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newStoreVerifyCommand())
	return cmd
}

func newStoreVerifyCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "verify [PREFIX]",
		Short: "Check every stored corpus object against its manifest's sha256 and its key's hash",
		Long: `Reads every object of the stored corpora under PREFIX (default corpora/)
and checks each file against the sha256 its corpus.json records, and each
corpus.json against the hash its key names. Prints one line per object that
does not match, naming its key. Exit status: 0 when everything matches,
1 when an object does not, 2 on an error.`,
		Args: cobra.MaximumNArgs(1),
	}
	outputFlag(cmd, &output, statusFormats)
	cmd = withStore(cmd, func(ctx context.Context, st store.Store, args []string) error {
		prefix := ""
		if len(args) == 1 {
			prefix = args[0]
		}
		r, err := activities.VerifyStore(ctx, st, prefix)
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
		if len(r.Problems) > 0 {
			return exitError{1, fmt.Errorf("%s: %d of %d objects in %d corpora do not match their manifests", r.Prefix, len(r.Problems), r.Objects, r.Corpora)}
		}
		if output != "json" {
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d objects in %d corpora match (%d unfinished corpora not checked)\n",
				r.Prefix, r.Objects, r.Corpora, len(r.Unfinished))
		}
		return nil
	})
	// Every failure other than a mismatch exits 2.
	return withExitCode(cmd, 2)
}
