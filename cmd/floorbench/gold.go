package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
)

func init() { subcommands = append(subcommands, newGoldCommand) }

func newGoldCommand() *cobra.Command {
	var dir, split, output string
	cmd := &cobra.Command{
		Use:   "gold --corpus DIR [--split dev|test]",
		Short: "Build gold artifacts (anchors, negative spans, excluded intervals)",
		Long: `With --corpus, derive the MPTB gold of a generated corpus from its event
logs (docs/protocol.md#mptb-generated): EOT positives at yielded turn ends, hold pauses as EOT
negatives, INT positives at successful claim onsets, backchannels,
non-floor-taking interruptions and non-content as INT negatives. Speakers are
numbered from 1. The turnbench subcommand derives TurnBench gold.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return cmd.Help()
			}
			g, err := corpus.Gold(dir, split, commandLimits(cmd))
			if err != nil {
				return err
			}
			return writeGold(cmd.OutOrStdout(), g, dir, output)
		},
	}
	cmd.Flags().StringVar(&dir, "corpus", "", "generated corpus folder (corpus generate --out)")
	cmd.Flags().StringVar(&split, "split", "", "dev or test (default: every conversation)")
	outputFlag(cmd, &output, statusFormats)
	cmd.AddCommand(newGoldTurnBenchCommand())
	return cmd
}

func newGoldTurnBenchCommand() *cobra.Command {
	var annotations, output string
	cmd := &cobra.Command{
		Use:   "turnbench --annotations A.json",
		Short: "Derive TurnBench gold from raw three-annotator tracks",
		Long: `Derive the gold exactly as TurnBench's scorer does (docs/protocol.md#turnbench): majority
consensus of annotators a, b and c (same canonical label, start and end within
0.2 s, starts matched within 0.5 s, median boundaries rounded to 4 decimals),
a turn view for EOT and a label view for INT, no-majority regions excluded.
A segment with a boundary more than 3 s outside the conversation, or an end
more than 3 s before its start, is an error; smaller deviations are kept, as
TurnBench keeps them.
With -o json it prints the gold artifact as TurnBench's "gold export" does;
otherwise a table of per-conversation counts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			gold, err := corpus.ReadTurnBenchGold(annotations, commandLimits(cmd))
			if err != nil {
				return err
			}
			return writeGold(cmd.OutOrStdout(), gold, annotations, output)
		},
	}
	cmd.Flags().StringVar(&annotations, "annotations", "", "raw annotations JSON")
	outputFlag(cmd, &output, statusFormats)
	_ = cmd.MarkFlagRequired("annotations")
	return cmd
}

// writeGold prints a gold set derived from source as the artifact (json) or
// as counts (table), after the checks every reader of the artifact makes,
// so that floorbench never writes gold it would refuse to read.
func writeGold(w io.Writer, g *floor.GoldSet, source, output string) error {
	if err := g.Validate(); err != nil {
		return fmt.Errorf("%s: the gold derived from it: %w", source, err)
	}
	var out bytes.Buffer
	if output == "json" {
		if err := floor.WriteGoldSet(&out, g); err != nil {
			return err
		}
	} else if err := goldCountsTable(g).Text(&out); err != nil {
		return err
	}
	_, err := out.WriteTo(w)
	return err
}

func goldCountsTable(g *floor.GoldSet) *report.Table {
	t := &report.Table{
		Title:  fmt.Sprintf("gold: %d conversations (tau_pre %gs, tau_max %gs)", len(g.Conversations), g.TauPre, g.TauMax),
		Header: []string{"conversation", "duration s", "eot+", "eot-", "eot excl", "int+", "int-", "int excl"},
	}
	var total [6]int
	var hours float64
	for _, c := range g.Conversations {
		n := [6]int{len(c.EOT.Positives), len(c.EOT.Negatives), len(c.EOT.Excluded), len(c.INT.Positives), len(c.INT.Negatives), len(c.INT.Excluded)}
		row := []string{c.ID, fmt.Sprintf("%.1f", c.Duration)}
		for i, v := range n {
			total[i] += v
			row = append(row, fmt.Sprint(v))
		}
		hours += c.Duration / 3600
		t.Rows = append(t.Rows, row)
	}
	row := []string{"TOTAL", fmt.Sprintf("%.2f h", hours)}
	for _, v := range total {
		row = append(row, fmt.Sprint(v))
	}
	t.Rows = append(t.Rows, row)
	return t
}
