package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/version"
)

// subcommands holds the constructors of every top-level command; each
// command's file adds itself in an init function so that commands live in
// files of their own.
var subcommands []func() *cobra.Command

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
		// Commands that read the config file also put its limits in
		// force; every command honours FLOORBENCH_LIMIT_*.
		PersistentPreRunE: func(*cobra.Command, []string) error {
			l, err := limits.Default().FromEnv(os.LookupEnv)
			if err != nil {
				return err
			}
			limits.Set(l)
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
