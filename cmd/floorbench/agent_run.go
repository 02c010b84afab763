package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/harness"
	"github.com/floorbench/floorbench/internal/limits"
)

func init() { agentSubcommands = append(agentSubcommands, newAgentRunCommand) }

// agentRunFlags are the flags of `agent run`.
type agentRunFlags struct {
	scenarios, out, output, keyEnv string
	dryRun, withEcho               bool
	snr, echo                      float64
	echoDelay                      int
	ro                             harness.RunOptions
	p                              agent.ScoreParams
}

func newAgentRunCommand() *cobra.Command {
	f := &agentRunFlags{ro: harness.RunOptions{Options: harness.DefaultOptions("", "", "")}}
	cmd := &cobra.Command{
		Use:   "run --scenarios DIR --protocol duplex|realtime --endpoint URL --agent NAME --out DIR",
		Short: "Play a scenario set to a voice agent over a real protocol, record every trial and score it",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return f.run(cmd) },
	}
	fs := cmd.Flags()
	ro := &f.ro
	fs.StringVar(&f.scenarios, "scenarios", "", "scenario set folder (floorbench agent scenarios)")
	fs.StringVar(&f.out, "out", "", "folder of trial recordings; trials already recorded there are not played again")
	agentEndpointFlags(fs, "the agent's name in recordings and tables", &ro.Agent, &ro.Model, &f.keyEnv, &ro.Endpoint)
	fs.IntVar(&ro.Repeats, "repeats", agent.DefaultRepeats, "times each scenario is played")
	fs.IntVar(&ro.Concurrency, "concurrency", limits.DefaultAgentSessions, "sessions open at once (the endpoint's limit)")
	fs.IntVar(&ro.Retries, "retries", limits.DefaultSessionRetries, "retries of a failed session before the trial is recorded as failed")
	fs.Float64Var(&ro.OnsetWait, "onset-wait", harness.DefaultOnsetWait, "STOP: seconds after the prompt to wait for the agent to start")
	fs.Float64Var(&f.snr, "snr-db", 0, "add pink noise this many dB under the tape's speech level (unset: none)")
	fs.Float64Var(&f.echo, "echo-db", agent.DefaultEchoDB, "echo the agent's own voice into its input at this gain in dB, as a speakerphone (with --echo)")
	fs.IntVar(&f.echoDelay, "echo-delay-ms", agent.DefaultEchoDelayMS, "delay of the echo in milliseconds (with --echo)")
	fs.BoolVar(&f.withEcho, "echo", false, "echo the agent's own voice into its input (--echo-db, --echo-delay-ms)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "say how many trials and how long they take, and play nothing")
	scoreParamFlags(fs, &f.p)
	outputFlag(cmd, &f.output, resultFormats)
	for _, name := range []string{"scenarios", "protocol", "endpoint", "agent"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}

func (f *agentRunFlags) run(cmd *cobra.Command) error {
	ro := &f.ro
	ro.Protocol, ro.Endpoint.Realtime.Model = ro.Endpoint.Protocol, ro.Model
	ro.VAD, ro.Windows, ro.Backoff, ro.Recovery = f.p.VAD, f.p.Windows, limits.DefaultSessionBackoff, f.p.Measures.Recovery
	if cmd.Flags().Changed("snr-db") {
		ro.Acoustics.SNR = &f.snr
	}
	if f.withEcho {
		ro.Acoustics.Echo, ro.Acoustics.EchoDelayMS = &f.echo, f.echoDelay
	}
	if err := f.check(commandLimits(cmd)); err != nil {
		return err
	}
	set, err := agent.ReadSet(f.scenarios)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	n := len(set.Scenarios) * ro.Repeats
	if f.dryRun {
		_, err := fmt.Fprintf(w, "%d trials (%d scenarios x %d repeats) to %s over %s: at most %s at concurrency %d\n",
			n, len(set.Scenarios), ro.Repeats, ro.Agent, ro.Protocol, harness.Estimate(set, *ro), ro.Concurrency)
		return err
	}
	if f.out == "" {
		return fmt.Errorf("--out is required unless --dry-run")
	}
	ctx := cmd.Context()
	if err := harness.Preflight(ctx, ro.Endpoint); err != nil {
		return fmt.Errorf("agent %s: %w", ro.Agent, err)
	}
	prog := newCountProgress(cmd.ErrOrStderr(), "trials")
	ro.Progress = prog.Set
	sum, err := harness.Run(ctx, f.scenarios, set, *ro, f.out)
	prog.Clear()
	if err != nil {
		return err
	}
	if err := sum.Err(); err != nil {
		return fmt.Errorf("agent %s: %w; recordings in %s", ro.Agent, err, f.out)
	}
	return f.report(w, sum, commandLimits(cmd))
}

// check refuses bad settings in one line before anything starts: the
// scorer's parameters, then the run's and the endpoint's
// (harness.RunOptions.Check), then the credential.
func (f *agentRunFlags) check(lim limits.Limits) error {
	if err := f.p.Validate(lim); err != nil {
		return err
	}
	if err := f.ro.Check(); err != nil {
		return err
	}
	ep := &f.ro.Endpoint
	if err := setCredential(ep, f.keyEnv); err != nil {
		return err
	}
	ep.Limits = lim
	return nil
}

// report scores the recordings and prints the agent's tables.
func (f *agentRunFlags) report(w io.Writer, sum harness.Summary, lim limits.Limits) error {
	trials, err := agent.ReadTrials(f.out, f.p, lim)
	if err != nil {
		return err
	}
	res := agent.Score(trials, f.p)
	if f.output == "json" {
		return writeJSON(w, res)
	}
	return writeResult(w, f.output,
		linesPart(fmt.Sprintf("%d trials played, %d already recorded, %d failed; recordings in %s", sum.Played, sum.Resumed, sum.Failed, f.out)),
		tablePart(agent.AgentTable(res)), tablePart(agent.FamilyTable(res)), tablePart(agent.MeasuresTable(res)),
		tablePart(agent.SpeakersTable(res)))
}
