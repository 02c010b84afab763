//go:build !floorbench_light

package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/inprocess"
	"github.com/floorbench/floorbench/internal/preview"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/temporalclient"
)

func init() { subcommands = append(subcommands, newSubmitCommand) }

func newSubmitCommand() *cobra.Command {
	var file, output string
	var wait, dryRun, inProcess bool
	cmd := &cobra.Command{
		Use:   "submit [-f] spec.yaml [--wait | --dry-run | --in-process]",
		Short: fullOnly["submit"],
		Long: `Submit validates the sweep spec and its systems and corpora, then starts the
sweep workflow with an id derived from the normalised spec: submitting the
same spec again attaches to the existing run (or returns its bundle).
Local corpora and the files systems name (models, external probabilities)
are uploaded to the configured store first, under their content hashes,
so workers on any machine that shares the store can run the sweep.

It prints the workflow id alone on the first line (a script can capture
it), then "bundle ID" when the bundle is known: with --wait, or when the
same spec already completed. -o json prints {"workflow_id", "run_id",
"bundle_id"}.

--dry-run resolves the spec without Temporal and without uploading: it
prints the workflow id, the content hashes of corpora and systems, and
which corpora, evaluations and bundle the store already holds (what is
not stored would be computed); for each agent, how many trials it would
play, how many are recorded, and how long all of them take at its
concurrency (from the preset's planned scenarios until its scenario set
is stored); for each seated agent, how many sessions it would play on
each corpus, how many are recorded, and how long the rest take at its
concurrency.

--in-process runs the sweep's plan in this process instead, with no
Temporal: the same activities, admitted as a worker admits them (slots
per task queue, --memory-budget), and the same bundle bytes; it prints
"bundle ID" (-o json: {"bundle_id"}). It has none of Temporal's durability: a crash loses
the run, though not the outputs already stored, which a rerun reuses
(docs/operations.md#one-machine).`,
		Example: `  floorbench submit sweep.yaml
  floorbench submit sweep.yaml --dry-run -o json
  id=$(floorbench submit -f sweep.yaml) && floorbench watch "$id"
  floorbench submit sweep.yaml --in-process --store-dir ./store`,
		Args: cobra.MaximumNArgs(1),
	}
	conf := configFlags(cmd)
	cmd.Flags().StringVarP(&file, "file", "f", "", "sweep spec (YAML); may also be given as the argument")
	cmd.Flags().BoolVar(&wait, "wait", false, "wait for the bundle, showing progress on stderr")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "resolve the spec and look up the store; contact no Temporal, upload nothing")
	cmd.Flags().BoolVar(&inProcess, "in-process", false, "run the sweep in this process, without Temporal (see above)")
	cmd.MarkFlagsMutuallyExclusive("wait", "dry-run", "in-process")
	admission := admissionFlags(cmd)
	batchRows := batchRowsFlag(cmd)
	outputFlag(cmd, &output, statusFormats)
	return withServices(cmd, conf, func(sv *services, args []string) error {
		file, err := specArgument(file, args)
		if err != nil {
			return err
		}
		cfg, err := sv.Config()
		if err != nil {
			return err
		}
		s, err := spec.Load(file, cfg.Limits)
		if err != nil {
			return err
		}
		rt := detect.RuntimeFromEnv()
		rt.Limits = cfg.Limits
		in, err := sweep.Resolve(s, rt)
		if err == nil {
			err = config.CheckAgentCredentials(&in.Spec, cfg.Credentials())
		}
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		storage, err := sv.Store()
		if err != nil {
			return err
		}
		if dryRun {
			pv, err := preview.Sweep(cmd.Context(), storage, in, cfg.Limits)
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			return printPreview(cmd.OutOrStdout(), pv, output)
		}
		if err := activities.Upload(cmd.Context(), storage, &in, rt); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if inProcess {
			ad, err := admission()
			if err != nil {
				return err
			}
			if err := batchRows(&rt); err != nil {
				return err
			}
			collectForSweeps()
			// A corrupt stored output computed again is said on stderr.
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{ReplaceAttr: dropTime}))
			bundle, err := inprocess.Run(cmd.Context(), in, &activities.Activities{Store: storage, Runtime: rt, Limits: cfg.Limits, Credentials: cfg.Credentials(), Generative: &activities.GenerativeSettings{Secrets: cfg.GenerativeSecrets()}, Log: log}, ad)
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			return printSubmitted(cmd.OutOrStdout(), submitted{BundleID: bundle}, output)
		}
		cl, err := sv.Temporal()
		if err != nil {
			return err
		}
		run, err := temporalclient.Submit(cmd.Context(), cl, in)
		if err != nil {
			return err
		}
		var st temporalclient.Status
		if wait {
			st, err = watchWithBar(cmd, cl, run.GetID())
		} else {
			st, err = temporalclient.GetStatus(cmd.Context(), cl, run.GetID())
		}
		if err != nil {
			return err
		}
		if err := printSubmitted(cmd.OutOrStdout(), submitted{WorkflowID: run.GetID(), RunID: run.GetRunID(), BundleID: st.BundleID}, output); err != nil {
			return err
		}
		if wait && st.State != "completed" {
			return fmt.Errorf("sweep %s %s: %s", st.ID, st.State, st.Error)
		}
		if !wait && st.State == "running" {
			fmt.Fprintf(cmd.ErrOrStderr(), "sweep %s running; follow it with: floorbench watch %s\n", run.GetID(), run.GetID())
		}
		return nil
	})
}

// specArgument is the spec named by -f or by the one argument; naming two
// different files is an error.
func specArgument(file string, args []string) (string, error) {
	if len(args) == 1 {
		if file != "" && file != args[0] {
			return "", fmt.Errorf("spec given twice: -f %s and argument %s (give one)", file, args[0])
		}
		file = args[0]
	}
	if file == "" {
		return "", fmt.Errorf("no sweep spec: give it as the argument or with -f")
	}
	return file, nil
}

// submitted is what submit prints: the run and, when known, its bundle.
// An in-process sweep has neither workflow nor run.
type submitted struct {
	WorkflowID string `json:"workflow_id,omitempty"`
	RunID      string `json:"run_id,omitempty"`
	BundleID   string `json:"bundle_id,omitempty"`
}

func printSubmitted(w io.Writer, s submitted, output string) error {
	if output == "json" {
		return writeJSON(w, s)
	}
	if s.WorkflowID != "" {
		fmt.Fprintln(w, s.WorkflowID)
	}
	if s.BundleID != "" {
		fmt.Fprintf(w, "bundle %s\n", s.BundleID)
	}
	return nil
}

func printPreview(w io.Writer, pv preview.Preview, output string) error {
	if output == "json" {
		return writeJSON(w, pv)
	}
	stored := map[bool]string{true: "stored", false: "to compute"}
	fmt.Fprintf(w, "workflow %s (spec %s)\n", pv.WorkflowID, pv.SpecHash)
	for _, c := range pv.Corpora {
		state := stored[c.Stored]
		if c.Source == "path" && !c.Stored {
			state = "to upload"
		}
		fmt.Fprintf(w, "corpus %s (%s) %s: %s", c.Name, c.Source, c.Hash, state)
		if c.Conversations > 0 {
			fmt.Fprintf(w, ", %d conversations", c.Conversations)
		}
		fmt.Fprintln(w)
	}
	for _, s := range pv.Systems {
		fmt.Fprintf(w, "system %s %s\n", s.Name, s.Hash)
	}
	for _, e := range pv.Evaluations {
		fmt.Fprintf(w, "evaluation %s on %s: %s\n", e.System, e.Corpus, stored[e.Stored])
	}
	for _, a := range pv.Agents {
		fmt.Fprintln(w, agentPreviewLine(a))
	}
	for _, a := range pv.Seated {
		fmt.Fprintln(w, seatedPreviewLine(a))
	}
	fmt.Fprintf(w, "bundle %s: %s\n", pv.Bundle.ID, stored[pv.Bundle.Stored])
	return nil
}

// agentPreviewLine says what an agent's evaluation would play and how
// long it takes.
func agentPreviewLine(a preview.AgentPreview) string {
	line := fmt.Sprintf("agent %s over %s: %d trials (%d scenarios of %s seed %d x %d repeats), %d recorded; ",
		a.Name, a.Protocol, a.Trials, a.Scenarios, a.Preset, a.Seed, a.Repeats, a.Recorded)
	if !a.SetStored {
		return line + fmt.Sprintf("scenario set to generate; all trials take at most %s (planned lengths) at concurrency %d, rate %g",
			a.Estimate().Round(time.Second), a.Concurrency, a.Rate)
	}
	return line + fmt.Sprintf("all trials take at most %s at concurrency %d, rate %g", a.Estimate().Round(time.Second), a.Concurrency, a.Rate)
}

// seatedPreviewLine says how many sessions a seated agent would play and
// how long they take.
func seatedPreviewLine(a preview.SeatedPreview) string {
	var corpora []string
	for _, c := range a.Corpora {
		corpora = append(corpora, fmt.Sprintf("%d on %s", c.Seats, c.Corpus))
	}
	line := fmt.Sprintf("seated agent %s over %s: %d sessions (%s), %d recorded; the rest take at most %s",
		a.Name, a.Protocol, a.Seats, strings.Join(corpora, ", "), a.Recorded, a.Estimate().Round(time.Second))
	if a.Planned {
		line += " (planned lengths of corpora to generate)"
	}
	return line + fmt.Sprintf(" at concurrency %d, rate %g", a.Concurrency, a.Rate)
}

// dropTime leaves the time out of a log line written to a terminal.
func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}
