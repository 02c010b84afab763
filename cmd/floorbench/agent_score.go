package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/score"
)

func init() { agentSubcommands = append(agentSubcommands, newAgentScoreCommand) }

func newAgentScoreCommand() *cobra.Command {
	var (
		dir, output string
		p           agent.ScoreParams
	)
	cmd := &cobra.Command{
		Use:   "score --recordings DIR",
		Short: "Score recorded agent trials from their output audio (no agent is contacted)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			trials, err := agent.ReadTrials(dir, p, commandLimits(cmd))
			if err != nil {
				return err
			}
			res := agent.Score(trials, p)
			if output == "json" {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			return writeResult(cmd.OutOrStdout(), output,
				linesPart(fmt.Sprintf("%d trials of %d agents from %s", len(res.Trials), len(res.Agents), dir)),
				tablePart(agent.AgentTable(res)), tablePart(agent.FamilyTable(res)), tablePart(agent.MeasuresTable(res)),
				tablePart(agent.SpeakersTable(res)))
		},
	}
	cmd.Flags().StringVar(&dir, "recordings", "", "folder of trial recordings (one folder per trial with recording.json, input.wav, output.wav)")
	scoreParamFlags(cmd.Flags(), &p)
	outputFlag(cmd, &output, resultFormats)
	cmd.MarkFlagRequired("recordings")
	return cmd
}

// scoreParamFlags adds the windows, the VAD parameters and the bootstrap
// of docs/agents.md#scoring to fs, with their published defaults.
func scoreParamFlags(fs *pflag.FlagSet, p *agent.ScoreParams) {
	d := agent.DefaultScoreParams()
	*p = d
	w, v := &p.Windows, &p.VAD
	fs.Float64Var(&w.EntryPre, "entry-pre", d.Windows.EntryPre, "START: seconds before the cue an entry may start")
	fs.Float64Var(&w.Entry, "entry-window", d.Windows.Entry, "START: seconds after the cue an entry may start")
	fs.Float64Var(&w.Yield, "yield-window", d.Windows.Yield, "STOP: seconds after the stimulus starts by which the agent's speech must end")
	fs.Float64Var(&w.StopSilence, "stop-silence", d.Windows.StopSilence, "STOP: seconds of silence after the end that make it a stop")
	fs.Float64Var(&w.BargeIn, "barge-in-window", d.Windows.BargeIn, "seconds after the audible stop a provider interruption event may come")
	fs.StringSliceVar(&w.BargeInKinds, "barge-in-kinds", d.Windows.BargeInKinds, "provider event kinds that say the agent was interrupted")
	m := &p.Measures
	fs.Float64Var(&m.DeadAir, "dead-air", d.Measures.DeadAir, "seconds after a turn end without an entry that are dead air")
	fs.Float64Var(&m.Recovery, "recovery-window", d.Measures.Recovery, "seconds after an interrupter's turn an agent that yielded may answer them and recover")
	fs.Float64Var(&m.StopTargetMS, "stop-target-ms", d.Measures.StopTargetMS, "stop latency target in ms (share of stops within it)")
	fs.IntVar(&v.FrameMS, "vad-frame-ms", d.VAD.FrameMS, "VAD frame in ms")
	fs.Float64Var(&v.OnDBFS, "vad-on-dbfs", d.VAD.OnDBFS, "VAD: frame level (dBFS) that starts speech")
	fs.Float64Var(&v.OffDBFS, "vad-off-dbfs", d.VAD.OffDBFS, "VAD: frame level (dBFS) that keeps speech going")
	fs.IntVar(&v.MinSpeechMS, "vad-min-speech-ms", d.VAD.MinSpeechMS, "VAD: speech shorter than this many ms is dropped")
	fs.IntVar(&v.MinSilenceMS, "vad-min-silence-ms", d.VAD.MinSilenceMS, "VAD: silences shorter than this many ms inside speech are bridged")
	fs.IntVar(&p.Bootstrap, "bootstrap", score.DefaultBootstrap, "scenario-bootstrap resamples for 95% intervals (0: none)")
	fs.Uint64Var(&p.Seed, "seed", 0, "bootstrap seed")
}
