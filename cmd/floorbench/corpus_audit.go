package main

import (
	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/audit"
)

func newCorpusAuditCommand() *cobra.Command {
	o := audit.DefaultOptions()
	var output string
	cmd := &cobra.Command{
		Use:   "audit DIR [--split test|dev] [-o text|json|md|csv|latex]",
		Short: "Score trivial one-feature rules (silence timeout, overlap length, ...) through the protocol and flag shortcuts",
		Long: `Audit a native corpus (generated MPTB, ingested TurnBench or AMI) for
shortcuts: one-number features computed causally from each speaker's channel
(own silence, frame energy, run length, overlapping-run length, the others'
silence since a claim began, and the words so far from the labels as an
oracle transcript) each become a score track and go through the protocol
exactly as a system does: candidate thresholds on dev, the commit rule,
the dev operating point, the threshold frozen on test, bootstrap intervals.

Every feature runs under both negative windows (span and anchored,
docs/protocol.md#negative-window), each with its own operating point. An
INT feature in budget with test recall at or above --int-shortcut-recall
under either window is flagged as a SHORTCUT: the corpus can be solved
without listening to what is said; one flagged under span only lives in
the blind spot. Every row gives recall within each --latency-budgets
budget; the cross-channel feature is reported with its latency, never
flagged. EOT is reported but not flagged unless --eot-shortcut-recall
is set, since a silence timeout may honestly stay in budget at the price of
latency. Corpora without a labelled dev split pick thresholds on the scored
split itself, and the output says so. Unlabelled conversations are skipped
and counted.

--tracks-out DIR writes each rule's score tracks as the probability files
detect writes (DIR/FEATURE/dev/probs-TASK.json and .../test/...), so that
a leaderboard ranks a system beside the rules with paired comparisons:
  floorbench leaderboard --dev-gold dev.json --test-gold test.json --bootstrap 10000 \
    --system holder_silence=DIR/holder_silence/dev/probs-int.json,DIR/holder_silence/test/probs-int.json \
    --system mine=probs/dev/probs-int.json,probs/test/probs-int.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := audit.Run(cmd.Context(), args[0], o, commandLimits(cmd))
			if err != nil {
				return err
			}
			switch output {
			case "json":
				return writeJSON(cmd.OutOrStdout(), r)
			case "md":
				return r.Markdown(cmd.OutOrStdout(), 2)
			case "text":
				return r.Text(cmd.OutOrStdout())
			}
			parts := []resultPart{linesPart(r.Summary()...)}
			for _, t := range r.Tasks {
				parts = append(parts, tablePart(t.Table()))
			}
			return writeResult(cmd.OutOrStdout(), output, append(parts, linesPart(r.Caption()))...)
		},
	}
	f := cmd.Flags()
	protocolFlags(f, &o.Params)
	f.StringVar(&o.Split, "split", o.Split, "split the frozen rules are scored on: test or dev")
	f.Float64Var(&o.INTFlagRecall, "int-shortcut-recall", o.INTFlagRecall, "in-budget INT test recall that flags a feature as a shortcut (0: off)")
	f.Float64Var(&o.EOTFlagRecall, "eot-shortcut-recall", o.EOTFlagRecall, "in-budget EOT test recall that flags a feature as a shortcut (0: off)")
	f.IntVar(&o.Resamples, "bootstrap", o.Resamples, "conversation-bootstrap resamples for 95% intervals (0: none)")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "bootstrap seed")
	f.StringVar(&o.TracksDir, "tracks-out", "", "also write every rule's score tracks as probability files, DIR/FEATURE/{dev,test}/probs-TASK.json (a new or empty folder), for a leaderboard that pairs a system with the rules")
	outputFlag(cmd, &output, resultFormats)
	return cmd
}
