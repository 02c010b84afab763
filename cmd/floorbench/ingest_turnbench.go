//go:build !floorbench_light

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/ingest/turnbench"
)

func init() { ingestSubcommands = append(ingestSubcommands, newIngestTurnBenchCommand) }

func newIngestTurnBenchCommand() *cobra.Command {
	var (
		files      []string
		out, split string
		output     string
		force      bool
	)
	cmd := &cobra.Command{
		Use:   ingestTurnBenchUse,
		Short: ingestTurnBenchShort,
		Long: `Read TurnBench's Hugging Face parquet shards row by row (one conversation's
audio in memory at a time) and write a native corpus: per conversation
speaker_1.wav and speaker_2.wav (16 kHz mono PCM16) and, unless the row's
annotation columns are blank, annotations.json with the raw tracks of
annotators a, b and c. Rows without labels (TurnBench's public test split)
become unlabelled conversations: detectors run on them, gold and scoring
refuse them. The split comes from a "split" column where the file has one,
else from --split. The accepted schema is in docs/formats.md#turnbench-parquet.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := turnbench.Ingest(turnbench.Options{Parquet: files, Out: out, Split: split, Force: force})
			if err != nil {
				return err
			}
			if output == "json" {
				return writeCorpusResult(cmd.OutOrStdout(), out, m, nil)
			}
			unlabelled := 0
			for _, c := range m.Conversations {
				if c.Unlabelled {
					unlabelled++
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d conversations (%d unlabelled) to %s\n", len(m.Conversations), unlabelled, out)
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&files, "parquet", nil, "parquet shard (repeat or comma-separate for several)")
	cmd.Flags().StringVar(&out, "out", "", "output folder (must be empty or absent unless --force)")
	cmd.Flags().StringVar(&split, "split", "", "split of rows in files without a split column: dev or test")
	cmd.Flags().BoolVar(&force, "force", false, "replace the corpus already in --out")
	outputFlag(cmd, &output, statusFormats)
	cmd.MarkFlagRequired("parquet")
	cmd.MarkFlagRequired("out")
	return cmd
}
