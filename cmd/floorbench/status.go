//go:build !floorbench_light

package main

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/floorbench/floorbench/internal/temporalclient"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newStatusCommand, newWatchCommand) }

// sweepCommand is a command about one existing sweep: it reads the
// configuration, connects to Temporal and hands run the client.
func sweepCommand(use, short string, run func(cmd *cobra.Command, cl temporalclient.Client, id, output string) error) *cobra.Command {
	var output string
	cmd := &cobra.Command{Use: use, Short: short, Args: cobra.ExactArgs(1)}
	config := configFlags(cmd)
	outputFlag(cmd, &output, statusFormats)
	return withServices(cmd, config, func(sv *services, args []string) error {
		if err := checkWorkflowID(args[0]); err != nil {
			return err
		}
		cl, err := sv.Temporal()
		if err != nil {
			return err
		}
		return run(cmd, cl, args[0], output)
	})
}

// checkWorkflowID refuses an id no sweep has: empty, too long for
// Temporal, or with a control character (a newline would split every
// message that names it).
func checkWorkflowID(id string) error {
	if id == "" || len(id) > 255 || strings.ContainsFunc(id, unicode.IsControl) {
		return fmt.Errorf("%q is not a workflow id", id)
	}
	return nil
}

func newStatusCommand() *cobra.Command {
	return sweepCommand("status WORKFLOW_ID", fullOnly["status"],
		func(cmd *cobra.Command, cl temporalclient.Client, id, output string) error {
			st, err := temporalclient.GetStatus(cmd.Context(), cl, id)
			if err != nil {
				return err
			}
			return printStatus(cmd.OutOrStdout(), st, output)
		})
}

func newWatchCommand() *cobra.Command {
	return sweepCommand("watch WORKFLOW_ID", fullOnly["watch"],
		func(cmd *cobra.Command, cl temporalclient.Client, id, output string) error {
			st, err := watchWithBar(cmd, cl, id)
			if err != nil {
				return err
			}
			return finish(cmd.OutOrStdout(), st, output)
		})
}

// watchWithBar follows a sweep until it ends, showing its progress on
// stderr.
func watchWithBar(cmd *cobra.Command, cl temporalclient.Client, id string) (temporalclient.Status, error) {
	show, done := sweepProgress(cmd.ErrOrStderr())
	defer done()
	return temporalclient.Watch(cmd.Context(), cl, id, 500*time.Millisecond, show)
}

func finish(w io.Writer, st temporalclient.Status, output string) error {
	if err := printStatus(w, st, output); err != nil {
		return err
	}
	if st.State != "completed" {
		return fmt.Errorf("sweep %s %s: %s", st.ID, st.State, st.Error)
	}
	return nil
}

func printStatus(w io.Writer, st temporalclient.Status, output string) error {
	if output == "json" {
		return writeJSON(w, st)
	}
	p := st.Progress
	fmt.Fprintf(w, "workflow %s: %s\n", st.ID, st.State)
	if p.Phase != "" {
		fmt.Fprintf(w, "phase %s; conversations %d/%d, tracks %d/%d, systems scored %d/%d\n",
			p.Phase, p.ConversationsGenerated, p.ConversationsTotal, p.TracksInferred, p.TracksTotal, p.SystemsScored, p.SystemsTotal)
	}
	for _, a := range p.Agents {
		if a.HasTrials || !a.Seated { // a sweep recorded before seated agents says neither
			fmt.Fprintln(w, agentStatusLine(a))
		}
		if a.Seated {
			fmt.Fprintln(w, seatedStatusLine(a))
		}
	}
	if st.BundleID != "" {
		fmt.Fprintf(w, "bundle %s\n", st.BundleID)
	}
	if st.Error != "" {
		fmt.Fprintf(w, "error: %s\n", st.Error)
	}
	return nil
}

// seatedStatusLine is a seated agent's progress and, once its seats are
// planned, how long all its sessions take.
func seatedStatusLine(a temporalclient.AgentProgress) string {
	line := fmt.Sprintf("seated agent %s: sessions %d/%d", a.Name, a.SeatsDone, a.Seats)
	if a.SeatEstimateS > 0 {
		line += fmt.Sprintf("; all take at most %s at concurrency %d", time.Duration(a.SeatEstimateS*float64(time.Second)).Round(time.Second), a.Concurrency)
	}
	return line
}

// agentStatusLine is an agent evaluation's progress and, once its
// scenario set is planned, how long all its trials take.
func agentStatusLine(a temporalclient.AgentProgress) string {
	line := fmt.Sprintf("agent %s: trials %d/%d", a.Name, a.Done, a.Trials)
	if a.EstimateS > 0 {
		line += fmt.Sprintf("; all take at most %s at concurrency %d", time.Duration(a.EstimateS*float64(time.Second)).Round(time.Second), a.Concurrency)
	}
	return line
}
