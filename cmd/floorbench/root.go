package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/version"
)

// subcommands holds the constructors of every top-level command; each
// command's file adds itself in an init function so that commands live in
// files of their own.
var subcommands []func() *cobra.Command

// limitsKey keys the limits the root command read from the environment
// in a command's context.
type limitsKey struct{}

// commandLimits is the limits of FLOORBENCH_LIMIT_* the root command read
// before cmd ran (limits.Default for a command run without the root).
func commandLimits(cmd *cobra.Command) limits.Limits {
	if l, ok := cmd.Context().Value(limitsKey{}).(limits.Limits); ok {
		return l
	}
	return limits.Default()
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "floorbench",
		Short:         "Evaluate end-of-turn and interruption detection (MPTB, TurnBench)",
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version prints the code version corpora and bundles record.
		// It is computed only when asked for: without a stamp or VCS
		// information it hashes the executable, which every command would
		// otherwise pay for at start.
		Version: "(see --version)",
		// Every command runs under FLOORBENCH_LIMIT_* (commandLimits);
		// commands that read the config file run under its limits.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			l, err := limits.Default().FromEnv(os.LookupEnv)
			if err != nil {
				return err
			}
			cmd.SetContext(context.WithValue(cmd.Context(), limitsKey{}, l))
			return nil
		},
	}
	cobra.AddTemplateFunc("codeVersion", version.Code)
	root.SetVersionTemplate("{{codeVersion}}\n")
	for _, sub := range subcommands {
		root.AddCommand(sub())
	}
	addExamples(root)
	return root
}
