package main

import "github.com/spf13/cobra"

// ingestSubcommands are the `corpus ingest` formats; each registers itself
// from its own file.
var ingestSubcommands []func() *cobra.Command

func newCorpusIngestCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ingest",
		Short: "Turn a real corpus (TurnBench parquet, AMI NXT) into the native corpus format",
	}
	for _, sub := range ingestSubcommands {
		cmd.AddCommand(sub())
	}
	return cmd
}
