package main

import "github.com/spf13/cobra"

func init() { subcommands = append(subcommands, newAgentCommand) }

// agentSubcommands holds the constructors of `agent`'s subcommands; each
// subcommand's file adds itself in an init function.
var agentSubcommands []func() *cobra.Command

func newAgentCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Test full-duplex voice agents: interactive scenarios, scores from their recorded audio",
	}
	for _, sub := range agentSubcommands {
		cmd.AddCommand(sub())
	}
	return cmd
}
