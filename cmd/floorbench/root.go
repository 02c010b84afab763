package main

import (
	"github.com/spf13/cobra"
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
	}
	for _, sub := range subcommands {
		root.AddCommand(sub())
	}
	return root
}
