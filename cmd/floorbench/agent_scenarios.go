package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/digest"
)

func init() { agentSubcommands = append(agentSubcommands, newAgentScenariosCommand) }

// writtenScenarios is the JSON shape of `agent scenarios -o json`: the
// folder written, its scenarios per condition and the sha256 of its
// scenarios.json.
type writtenScenarios struct {
	Scenarios      string         `json:"scenarios"`
	Preset         string         `json:"preset"`
	Seed           uint64         `json:"seed"`
	Count          int            `json:"count"`
	PerCondition   map[string]int `json:"per_condition"`
	ManifestSHA256 string         `json:"manifest_sha256"`
}

func newAgentScenariosCommand() *cobra.Command {
	var (
		preset, seed, out, output string
		jobs                      int
	)
	cmd := &cobra.Command{
		Use:   "scenarios --preset mptb-agent|tiny-agent --seed N --out DIR",
		Short: "Generate interactive START/STOP scenarios for voice agents with the MPTB generator (espeak-ng, flite)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := strconv.ParseUint(seed, 10, 64)
			if err != nil {
				return fmt.Errorf("--seed %q: want a non-negative integer", seed)
			}
			if jobs < 1 {
				return fmt.Errorf("--jobs %d: want at least 1", jobs)
			}
			if err := commandLimits(cmd).CheckConcurrency("--jobs", jobs); err != nil {
				return err
			}
			progress := newCountProgress(cmd.ErrOrStderr(), "generating")
			m, err := agent.Generate(cmd.Context(), agent.GenerateOptions{Preset: preset, Seed: s, Out: out, Jobs: jobs, Progress: progress.Set})
			if err != nil {
				return err
			}
			if output == "json" {
				sum, err := digest.FileSHA256(filepath.Join(out, agent.SetName))
				if err != nil {
					return err
				}
				r := writtenScenarios{Scenarios: out, Preset: m.Preset, Seed: m.Seed, Count: len(m.Scenarios), PerCondition: map[string]int{}, ManifestSHA256: sum}
				for _, sc := range m.Scenarios {
					r.PerCondition[string(sc.Condition)]++
				}
				return writeJSON(cmd.OutOrStdout(), r)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d scenarios to %s (play each %d times by default)\n", len(m.Scenarios), out, agent.DefaultRepeats)
			return nil
		},
	}
	cmd.Flags().StringVar(&preset, "preset", "", "scenario design: mptb-agent (192 scenarios: MPTB's 120, 30 per condition, and 12 of each of six scenes) or tiny-agent (14, for tests)")
	cmd.Flags().StringVar(&seed, "seed", "", "seed (each scenario is seeded from it and its id)")
	cmd.Flags().StringVar(&out, "out", "", "output folder (created; must be absent or empty)")
	cmd.Flags().IntVar(&jobs, "jobs", runtime.NumCPU(), "scenarios generated at once")
	cmd.Flags().Lookup("jobs").DefValue = "the number of CPUs"
	outputFlag(cmd, &output, statusFormats)
	cmd.MarkFlagRequired("preset")
	_ = cmd.RegisterFlagCompletionFunc("preset", cobra.FixedCompletions(agent.ScenarioPresetNames, cobra.ShellCompDirectiveNoFileComp))
	cmd.MarkFlagRequired("seed")
	cmd.MarkFlagRequired("out")
	return cmd
}
