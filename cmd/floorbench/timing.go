package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/swbd"
)

func newCorpusTimingCommand() *cobra.Command {
	var output, split string
	cmd := &cobra.Command{
		Use:   "timing DIR",
		Short: "Print the human timing baseline: floor-transfer offsets of the corpus's labels",
		Long: `Print the human timing baseline of a corpus (any kind): the distribution
of floor-transfer offsets, the next speaker's start minus the current turn's
end, as TurnBench reports it: for smooth transfers and with interruptions
included. Negative offsets are starts in overlap. Where the corpus has hold
pauses it also compares its timing with real conversation: the two-sample
Kolmogorov–Smirnov distance of its handover offsets (at every change of
speaker between floor-holding stretches, taken in order of onset) from
Switchboard's floor-transfer offsets, of its hold pauses of 0.2 s or more
from Switchboard's pauses, and, where it has interruptions, of the holder's
reaction to them (claim onset to the end of the holder's speech) from how
long Switchboard's speakers talk on into the overlap at a floor transfer
(package internal/swbd). Where event logs have interruptions it also says
what they predict for the audit's holder-silence rule: in what share of
claims (within 3 s of onset) and of INT negatives every other speaker falls
silent for 0.13 to 0.6 s while the vocaliser speaks.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := corpus.Timing(args[0], split, commandLimits(cmd))
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(t)
			}
			return writeResult(cmd.OutOrStdout(), output, timingParts(t)...)
		},
	}
	outputFlag(cmd, &output, resultFormats)
	cmd.Flags().StringVar(&split, "split", "", "dev or test (default: both)")
	return cmd
}

// timingParts are the offsets' table under a line of counts and, where
// the corpus has hold pauses, its distance from Switchboard.
func timingParts(t floor.Timing) []resultPart {
	parts := []resultPart{
		linesPart(fmt.Sprintf("floor-transfer offsets (next speaker's start − current turn's end), %d transfers, %d by interruption", t.Transfers, t.Interruptions)),
		tablePart(report.TimingTable(t)),
	}
	if sw := t.Switchboard; sw != nil {
		lines := []string{"against Switchboard (Kolmogorov–Smirnov distance; 0 is identical):",
			fmt.Sprintf("  handover offsets  n=%d  median %s ms (Switchboard %s)  KS %s",
				sw.Handovers, report.Signed(sw.HandoverMedian*1000, 0), report.Signed(swbd.Offsets().At(0.5)*1000, 0), report.Fixed(sw.HandoverKS, 3)),
			fmt.Sprintf("  hold pauses ≥ %s s  n=%d  median %s ms (Switchboard %s)  KS %s",
				report.Fixed(floor.MinPause, 1), sw.Pauses, report.Fixed(sw.PauseMedian*1000, 0), report.Fixed(swbd.Pauses().At(0.5)*1000, 0), report.Fixed(sw.PauseKS, 3))}
		if r := sw.Reaction; r != nil {
			lines = append(lines, fmt.Sprintf("  holder reaction (claim onset → holder's end)  n=%d  median %s ms (Switchboard's overlaps %s)  KS %s",
				r.N, report.Fixed(r.Median*1000, 0), report.Fixed(swbd.Overlaps().At(0.5)*1000, 0), report.Fixed(r.KS, 3)))
		}
		parts = append(parts, linesPart(lines...))
	}
	if h := t.HolderSilence; h != nil {
		parts = append(parts, linesPart(silenceLines(h)...))
	}
	return parts
}

// silenceLines say, per threshold, in what share of claims and of INT
// negatives the event logs have the others silent that long.
func silenceLines(h *floor.SilenceShares) []string {
	lines := []string{fmt.Sprintf("the others' silence inside the vocaliser's speech (event logs, %s s hangover), what the audit's holder-silence rule can read:", report.Fixed(floor.SpeechHangover, 1))}
	for i, th := range h.Thresholds {
		lines = append(lines, fmt.Sprintf("  ≥ %s s  claims %s (n=%d, within %s s of onset)  INT negatives %s (n=%d)",
			report.Fixed(th, 2), report.Fixed(100*h.ClaimShare[i], 1)+"%", h.Claims, report.Fixed(floor.DefaultTauMax, 0), report.Fixed(100*h.NegativeShare[i], 1)+"%", h.Negatives))
	}
	return lines
}
