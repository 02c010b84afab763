//go:build !floorbench_light

package main

import (
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/quickstart"
)

func init() { subcommands = append(subcommands, newQuickstartCommand) }

// quickstartResult is the JSON shape of `quickstart -o json`: the bundle
// written, where, and the corpora, leaderboards and agents it holds.
type quickstartResult struct {
	BundleID     string                     `json:"bundle_id"`
	Location     string                     `json:"location"`
	Corpora      []evaluate.CorpusInfo      `json:"corpora"`
	Leaderboards []bundle.CorpusLeaderboard `json:"leaderboards"`
	Agents       *agent.Results             `json:"agents,omitempty"`
}

func newQuickstartCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "quickstart [-f] [SPEC]",
		Short: fullOnly["quickstart"],
		Long: `Quickstart starts a Temporal dev server (the pinned binary from
scripts/setup.sh; never a download) and an in-process worker, generates the
tiny MPTB corpus, runs the rms, webrtcvad and silero detectors (the papers'
instantaneous gates) and rms-endpointer and silero-endpointer (silence
timeouts on the same voice activity), evaluates them
(dev operating points, frozen test thresholds, bootstrap intervals), writes a
bundle to the store, prints each leaderboard with its reading in plain
words (which systems fire within the test budget, which are in budget only
by never firing, and how many false alarms the test split allows) and the
bundle's location, and stops everything it started. --temporal-address uses an existing Temporal;
--s3-endpoint puts everything in S3/MinIO instead of the local store.
-f runs another sweep spec the same way (for example one with ingested
TurnBench and AMI corpora: the sim-to-real table is printed too); the spec
may also be given as the argument.`,
		Args: cobra.MaximumNArgs(1),
	}
	config := configFlags(cmd)
	var specFile, output string
	outputFlag(cmd, &output, statusFormats)
	cmd.Flags().StringVarP(&specFile, "file", "f", "", "sweep spec (YAML) to run instead of the built-in quickstart sweep")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 1 {
			if specFile != "" {
				return fmt.Errorf("spec %s given twice: as -f %s and as the argument", args[0], specFile)
			}
			specFile = args[0]
		}
		cfg, err := config()
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		start := time.Now()
		show, done := sweepProgress(cmd.ErrOrStderr())
		res, where, err := quickstart.Run(ctx, quickstart.Options{
			Config:        cfg,
			StartTemporal: !cmd.Flags().Changed("temporal-address"),
			Tools:         detect.RuntimeFromEnv().Tools,
			Progress:      show,
			SpecFile:      specFile,
		}, cmd.ErrOrStderr())
		done()
		if err != nil {
			return err
		}
		out := cmd.OutOrStdout()
		if output == "json" {
			return writeJSON(out, quickstartResult{res.BundleID, where, res.Corpora, res.Leaderboards, res.Agents})
		}
		for i := range res.Leaderboards {
			lb := &res.Leaderboards[i]
			t := lb.Table()
			t.Title = fmt.Sprintf("%s on %s (test, frozen dev thresholds)", t.Title, lb.Corpus)
			if err := t.Text(out); err != nil {
				return err
			}
			for _, line := range lb.Reading(res.Protocol.FPBudgetTest) {
				fmt.Fprintln(out, line)
			}
			fmt.Fprintln(out)
		}
		if res.Agents != nil {
			if err := agent.AgentTable(*res.Agents).Text(out); err != nil {
				return err
			}
			fmt.Fprintln(out)
		}
		if len(res.Corpora) > 1 {
			t := bundle.SimToReal(res)
			t.Title = "sim-to-real (test; own dev thresholds, or transferred where a corpus has no dev data)"
			if err := t.Text(out); err != nil {
				return err
			}
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "bundle %s in %s\n", res.BundleID, where)
		fmt.Fprintf(out, "wall time %s\n", time.Since(start).Round(time.Second))
		return nil
	}
	return cmd
}
