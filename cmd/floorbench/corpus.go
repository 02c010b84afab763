package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/generate"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/synth"
)

func init() { subcommands = append(subcommands, newCorpusCommand) }

func newCorpusCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "corpus",
		Short: "Generate, ingest, inspect, check and export corpora (MPTB, TurnBench, AMI)",
	}
	cmd.AddCommand(newCorpusGenerateCommand(), newCorpusIngestCommand(), newCorpusStatsCommand(), newCorpusTimingCommand(), newCorpusCheckCommand(), newCorpusExportCommand(), newCorpusExportCacheCommand(), newCorpusAuditCommand())
	return cmd
}

// writtenCorpus is the JSON shape of `corpus generate -o json` and
// `corpus ingest turnbench -o json`: the corpus folder written, its
// conversations and the sha256 of its corpus.json.
type writtenCorpus struct {
	Corpus         string `json:"corpus"`
	Kind           string `json:"kind"`
	Conversations  int    `json:"conversations"`
	Unlabelled     int    `json:"unlabelled"`
	ManifestSHA256 string `json:"manifest_sha256"`
	// Generative counts the generative backends' work (generate only).
	Generative *generativeCounts `json:"generative,omitempty"`
}

// writeCorpusResult writes what -o json says of a corpus written to dir.
func writeCorpusResult(w io.Writer, dir string, m *corpus.Manifest, g *generativeCounts) error {
	sum, err := digest.FileSHA256(filepath.Join(dir, "corpus.json"))
	if err != nil {
		return err
	}
	r := writtenCorpus{Corpus: dir, Kind: m.Kind, Conversations: len(m.Conversations), ManifestSHA256: sum, Generative: g}
	for _, c := range m.Conversations {
		if c.Unlabelled {
			r.Unlabelled++
		}
	}
	return writeJSON(w, r)
}

func newCorpusGenerateCommand() *cobra.Command {
	var (
		preset, seed, out, output string
		jobs                      int
		force                     bool
		backends                  *backendFlags
	)
	cmd := &cobra.Command{
		Use:   "generate --preset mptb|tiny|train --seed N --out DIR",
		Short: "Generate a corpus with the five-stage MPTB pipeline (templates, espeak-ng, flite, festival; or chat and speech endpoints)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := strconv.ParseUint(seed, 10, 64)
			if err != nil {
				return fmt.Errorf("--seed %q: want a non-negative integer", seed)
			}
			if out == "" {
				return fmt.Errorf("--out is required")
			}
			if jobs < 1 {
				return fmt.Errorf("--jobs %d: want at least 1", jobs)
			}
			if err := commandLimits(cmd).CheckConcurrency("--jobs", jobs); err != nil {
				return err
			}
			backends.ops.Limits, backends.ops.Notice = commandLimits(cmd), cmd.ErrOrStderr()
			b, err := backends.open(cmd.Context(), preset, s)
			if err != nil {
				return err
			}
			defer b.Close()
			progress := newCountProgress(cmd.ErrOrStderr(), "generating")
			m, err := generate.Corpus(cmd.Context(), generate.Options{
				Preset: preset, Seed: s, Out: out, Jobs: jobs, Force: force, Progress: progress.Set, Backends: b})
			counts := countsOf(b)
			counts.print(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if output == "json" {
				return writeCorpusResult(cmd.OutOrStdout(), out, m, counts)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d conversations to %s\n", len(m.Conversations), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&preset, "preset", "", "corpus design: mptb (240 conversations, 6.9 h), tiny (12 short ones), train (96 of a minute in voices and noises no other preset uses: a detector's training data) or unheard (72 in flite and festival voices only: a trained detector's test in voices it never heard)")
	cmd.Flags().StringVar(&seed, "seed", "", "corpus seed (each conversation is seeded from it and its id)")
	cmd.Flags().StringVar(&out, "out", "", "output folder (created; must be empty unless --force)")
	cmd.Flags().IntVar(&jobs, "jobs", runtime.NumCPU(), "conversations generated at once")
	// The help names the default rather than this machine's count.
	cmd.Flags().Lookup("jobs").DefValue = "the number of CPUs"
	cmd.Flags().BoolVar(&force, "force", false, "replace the corpus already in --out")
	backends = addBackendFlags(cmd)
	outputFlag(cmd, &output, statusFormats)
	cmd.MarkFlagRequired("preset")
	_ = cmd.RegisterFlagCompletionFunc("preset", cobra.FixedCompletions(synth.PresetNames, cobra.ShellCompDirectiveNoFileComp))
	cmd.MarkFlagRequired("seed")
	cmd.MarkFlagRequired("out")
	return cmd
}

// checkResult is the JSON shape of `corpus check -o json`.
type checkResult struct {
	Corpus        string   `json:"corpus"`
	Kind          string   `json:"kind"`
	Conversations int      `json:"conversations"`
	Boundaries    int      `json:"event_boundaries_checked"`
	Annotations   int      `json:"annotations_checked"`
	Problems      []string `json:"problems"`
}

func newCorpusCheckCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "check DIR",
		Short: "Verify a corpus: hashes, lengths, clipping, event logs, event/audio consistency",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := corpus.Check(args[0], commandLimits(cmd))
			if err != nil {
				return err
			}
			if output == "json" {
				res := checkResult{args[0], r.Kind, r.Conversations, r.Boundaries, r.Annotations, []string{}}
				for _, p := range r.Problems {
					res.Problems = append(res.Problems, p.String())
				}
				if err := writeJSON(cmd.OutOrStdout(), res); err != nil {
					return err
				}
				if len(r.Problems) > 0 {
					return fmt.Errorf("%s: %d problems in %d conversations", args[0], len(r.Problems), r.Conversations)
				}
				return nil
			}
			for _, p := range r.Problems {
				fmt.Fprintln(cmd.ErrOrStderr(), p)
			}
			if len(r.Problems) > 0 {
				return fmt.Errorf("%s: %d problems in %d conversations", args[0], len(r.Problems), r.Conversations)
			}
			if r.Kind == corpus.KindTurnBench {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %d conversations ok (%d annotated segments inside the audio)\n",
					args[0], r.Conversations, r.Annotations)
				return nil
			}
			if r.Kind == corpus.KindAMI {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %d conversations ok (real recordings: event boundaries not compared with the audio)\n", args[0], r.Conversations)
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d conversations ok (%d event boundaries within %.0f ms of the audio)\n",
				args[0], r.Conversations, r.Boundaries, corpus.BoundaryTolerance*1000)
			return nil
		},
	}
	outputFlag(cmd, &output, statusFormats)
	return cmd
}

func newCorpusStatsCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "stats DIR",
		Short: "Print a corpus's composition (counts, hours, rates by type and speaker count)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := corpus.Open(args[0], commandLimits(cmd))
			if err != nil {
				return err
			}
			var s interface {
				Summary() []string
				Table() (title string, header []string, rows [][]string)
			}
			if c.Manifest.Kind == corpus.KindTurnBench {
				s, err = corpus.ComputeTurnBenchStats(args[0], commandLimits(cmd))
			} else {
				s, err = corpus.ComputeStats(args[0], commandLimits(cmd))
			}
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(s)
			}
			title, header, rows := s.Table()
			return writeResult(cmd.OutOrStdout(), output, linesPart(s.Summary()...), tablePart(&report.Table{Title: title, Header: header, Rows: rows}))
		},
	}
	outputFlag(cmd, &output, resultFormats)
	return cmd
}

// exportResult is the JSON shape of `corpus export -o json`.
type exportResult struct {
	Corpus string `json:"corpus"`
	Format string `json:"format"`
	Out    string `json:"out"`
	Files  int    `json:"files"`
}

func newCorpusExportCommand() *cobra.Command {
	var format, out, output string
	var force bool
	cmd := &cobra.Command{
		Use:   "export DIR --format rttm|textgrid --out DIR",
		Short: "Export speaker activity (RTTM) or per-speaker event tiers (Praat TextGrid)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("--out is required")
			}
			if err := checkOutDir("--out", out, force); err != nil {
				return err
			}
			var n int
			err := replaceDir(out, force, func(tmp string) (err error) {
				n, err = corpus.Export(args[0], format, tmp, commandLimits(cmd))
				return err
			})
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd.OutOrStdout(), exportResult{args[0], format, out, n})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d %s files to %s\n", n, format, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "rttm or textgrid")
	cmd.Flags().StringVar(&out, "out", "", "output folder (created; must not exist or be empty unless --force)")
	cmd.Flags().BoolVar(&force, "force", false, "replace what is at --out (a file or folder), atomically")
	outputFlag(cmd, &output, statusFormats)
	cmd.MarkFlagRequired("format")
	return cmd
}
