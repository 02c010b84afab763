package main

import "github.com/spf13/cobra"

// `corpus ingest turnbench` reads parquet through parquet-go, which the
// front (-tags floorbench_light) does not link: there it is handed to
// floorbench-full under the same name and help line.
const (
	ingestTurnBenchUse   = "turnbench --parquet FILE... --out DIR [--split dev|test]"
	ingestTurnBenchShort = "Turn TurnBench parquet shards into a native corpus (kind turnbench)"
)

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
