package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/report"
)

func newCorpusTimingCommand() *cobra.Command {
	var output, split string
	cmd := &cobra.Command{
		Use:   "timing DIR",
		Short: "Print the human timing baseline: floor-transfer offsets of the corpus's labels",
		Long: `Print the human timing baseline of a corpus (any kind): the distribution
of floor-transfer offsets, the next speaker's start minus the current turn's
end, as TurnBench reports it: for smooth transfers and with interruptions
included. Negative offsets are starts in overlap.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			t, err := corpus.Timing(args[0], split)
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(t)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "floor-transfer offsets (next speaker's start − current turn's end), %d transfers, %d by interruption\n\n", t.Transfers, t.Interruptions)
			return report.TimingTable(t).Text(cmd.OutOrStdout())
		},
	}
	outputFlag(cmd, &output)
	cmd.Flags().StringVar(&split, "split", "", "dev or test (default: both)")
	return cmd
}
