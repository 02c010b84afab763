package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/detect/fromcorpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
)

func init() { subcommands = append(subcommands, newDetectCommand) }

type detectOptions struct {
	system, spec, corpus, split, out string
	params                           []string
	device, onnxRuntime              string
	threads                          int
	force                            bool
	output                           string
}

// detectResult is the JSON shape of `detect -o json`.
type detectResult struct {
	System        string        `json:"system"`
	SystemHash    string        `json:"system_hash"`
	Corpus        string        `json:"corpus"`
	Split         string        `json:"split"`
	Conversations int           `json:"conversations"`
	Files         []writtenFile `json:"files"`
}

// writtenFile is a file a command wrote, with its sha256.
type writtenFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// writtenFiles hashes the files at paths.
func writtenFiles(paths ...string) ([]writtenFile, error) {
	var files []writtenFile
	for _, p := range paths {
		sum, err := digest.FileSHA256(p)
		if err != nil {
			return nil, err
		}
		files = append(files, writtenFile{p, sum})
	}
	return files, nil
}

func newDetectCommand() *cobra.Command {
	var o detectOptions
	cmd := &cobra.Command{
		Use:   "detect --system NAME|--system-spec FILE --corpus DIR --out DIR",
		Short: "Run a detector over a corpus and write its EOT and INT probability files",
		Long: `Detect runs a detector system (docs/architecture.md#detectors; see floorbench systems) causally
over every conversation of a corpus split and writes probs-eot.json and
probs-int.json into --out, ready for sweep and score. The files appear only
when every conversation has been scored; on any error nothing is written.

ONNX systems need ONNX Runtime and their model (scripts/setup.sh onnx).
--device cuda uses the CUDA execution provider where it is present and
falls back to the CPU with a warning where it is not.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDetect(cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.system, "system", "", "built-in system by family name (see floorbench systems)")
	f.StringVar(&o.spec, "system-spec", "", "system spec file (YAML)")
	f.StringArrayVar(&o.params, "param", nil, "set a parameter: name=value (repeatable)")
	f.StringVar(&o.corpus, "corpus", "", "native corpus folder (holding corpus.json)")
	f.StringVar(&o.split, "split", "all", "split to score: dev, test or all")
	f.StringVar(&o.out, "out", "", "folder for probs-eot.json and probs-int.json (created)")
	f.BoolVar(&o.force, "force", false, "replace probs-eot.json and probs-int.json already in --out")
	rt := detect.RuntimeFromEnv()
	f.StringVar(&o.device, "device", string(rt.Device), "ONNX Runtime device: cpu or cuda (env FLOORBENCH_DEVICE)")
	f.StringVar(&o.onnxRuntime, "onnxruntime", rt.OnnxRuntime, "ONNX Runtime shared library (env FLOORBENCH_ONNXRUNTIME; default: the setup's)")
	f.IntVar(&o.threads, "threads", 1, "ONNX Runtime threads per session")
	outputFlag(cmd, &o.output, statusFormats)
	_ = cmd.RegisterFlagCompletionFunc("system", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var names []string
		for _, f := range detect.Families() {
			names = append(names, f.Name+"\t"+f.Doc)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("split", cobra.FixedCompletions([]string{"dev", "test", "all"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.MarkFlagsMutuallyExclusive("system", "system-spec")
	cmd.MarkFlagsOneRequired("system", "system-spec")
	_ = cmd.MarkFlagRequired("corpus")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func runDetect(cmd *cobra.Command, o detectOptions) error {
	sys, err := loadSystem(o.system, o.spec, o.params, commandLimits(cmd))
	if err != nil {
		return err
	}
	rt := detect.RuntimeFromEnv()
	rt.Device, rt.OnnxRuntime, rt.Threads = detect.Device(o.device), o.onnxRuntime, o.threads
	rt.Limits = commandLimits(cmd)
	if rt.Device != detect.DeviceCPU && rt.Device != detect.DeviceCUDA {
		return fmt.Errorf("--device %q: want cpu or cuda", o.device)
	}
	split := o.split
	switch split {
	case "all":
		split = ""
	case "dev", "test":
	default:
		return fmt.Errorf("--split %q: want dev, test or all", o.split)
	}
	if err := checkOutFiles("--out", o.out, o.force, detect.ProbsFileNames...); err != nil {
		return err
	}
	hash, err := sys.Hash(rt)
	if err != nil {
		return err
	}
	c, err := corpus.Open(o.corpus, commandLimits(cmd))
	if err != nil {
		return err
	}
	src, err := fromcorpus.Source(c, split)
	if err != nil {
		return err
	}
	d, err := sys.Open(rt)
	if err != nil {
		return err
	}
	defer d.Close()
	progress := newCountProgress(cmd.ErrOrStderr(), "detect "+sys.Name)
	eot, intr, err := detect.ProbsFiles(cmd.Context(), d, src, func() { progress.Add(src.Count) })
	if err != nil {
		// The error line replaces the unfinished bar.
		progress.Clear()
		return err
	}
	if err := detect.WriteProbsFiles(o.out, eot, intr); err != nil {
		return err
	}
	// An EOT-only or INT-only system writes the file of its task alone.
	var paths []string
	for i, p := range []*score.ProbsFile{eot, intr} {
		if p != nil {
			paths = append(paths, filepath.Join(o.out, detect.ProbsFileNames[i]))
		}
	}
	if o.output == "json" {
		files, err := writtenFiles(paths...)
		if err != nil {
			return err
		}
		return writeJSON(cmd.OutOrStdout(), detectResult{sys.Name, hash, o.corpus, o.split, src.Count, files})
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s (%s): %d conversations -> %s\n", sys.Name, hash[:12], src.Count, strings.Join(paths, ", "))
	return nil
}

// loadSystem resolves --system or --system-spec, then applies --param.
func loadSystem(name, spec string, params []string, lim limits.Limits) (*detect.System, error) {
	var sys *detect.System
	var err error
	if spec != "" {
		sys, err = detect.LoadSystem(spec, lim)
	} else {
		sys, err = detect.Builtin(name)
	}
	if err != nil {
		return nil, err
	}
	for _, p := range params {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return nil, fmt.Errorf("--param %q: want name=value", p)
		}
		if err := sys.SetParam(k, v); err != nil {
			return nil, err
		}
	}
	return sys, nil
}
