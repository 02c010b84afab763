package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/figure"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/store"
)

func init() { subcommands = append(subcommands, newBundleCommand) }

func newBundleCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bundle",
		Short: "List, show, fetch and compare result bundles in the store",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newBundleLsCommand(), newBundleShowCommand(), newBundleGetCommand(), newBundleFiguresCommand(), newBundleDiffCommand())
	return cmd
}

// withStore adds the store flags and opens the store for run.
func withStore(cmd *cobra.Command, run func(ctx context.Context, st store.Store, args []string) error) *cobra.Command {
	config := storeFlags(cmd)
	withServices(cmd, config, func(sv *services, args []string) error {
		st, err := sv.Store()
		if err != nil {
			return err
		}
		return run(sv.ctx, st, args)
	})
	if strings.Contains(cmd.Use, "_ID") {
		cmd.ValidArgsFunction = completeBundleIDs(config)
	}
	return cmd
}

// completeBundleIDs completes bundle ids from the configured store, newest
// first, each with its name and creation time, and "latest".
func completeBundleIDs(config func() (config.Config, error)) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		none := cobra.ShellCompDirectiveNoFileComp
		st, err := (&services{ctx: cmd.Context(), config: config}).Store()
		if err != nil {
			return nil, none | cobra.ShellCompDirectiveError
		}
		manifests, err := bundle.List(cmd.Context(), st)
		if err != nil {
			return nil, none | cobra.ShellCompDirectiveError
		}
		out := []string{"latest\tthe newest bundle"}
		for _, m := range manifests {
			if strings.HasPrefix(m.BundleID, prefix) {
				out = append(out, m.BundleID+"\t"+m.Meta.Name+" "+m.Created)
			}
		}
		return out, none
	}
}

// checkBundleID refuses what cannot be a bundle id (a path, a newline)
// before it reaches a store key or a message.
func checkBundleID(id string) error {
	if err := store.CheckKey(id); err != nil || strings.Contains(id, "/") {
		return fmt.Errorf("%q is not a bundle id", id)
	}
	return nil
}

// maxCandidates is how many bundles an ambiguous prefix names.
const maxCandidates = 5

// resolveBundleID turns what a user typed into a bundle id: a full id, a
// unique prefix of one, or "latest" (the newest by its manifest's created
// time).
func resolveBundleID(ctx context.Context, st store.Store, arg string) (string, error) {
	if err := checkBundleID(arg); err != nil {
		return "", err
	}
	if ok, err := bundle.Stored(ctx, st, arg); err != nil || ok {
		return arg, err
	}
	manifests, err := bundle.List(ctx, st)
	if err != nil {
		return "", err
	}
	if arg == "latest" {
		if len(manifests) == 0 {
			return "", fmt.Errorf("bundle latest: the store holds no bundle")
		}
		return manifests[0].BundleID, nil
	}
	var ids []string
	for _, m := range manifests {
		if strings.HasPrefix(m.BundleID, arg) {
			ids = append(ids, m.BundleID)
		}
	}
	switch {
	case len(ids) == 1:
		return ids[0], nil
	case len(ids) == 0:
		return "", fmt.Errorf("bundle %s: no bundle has this id or prefix (see floorbench bundle ls)", arg)
	case len(ids) > maxCandidates:
		return "", fmt.Errorf("bundle %s: prefix of %d bundles, the first %d: %s", arg, len(ids), maxCandidates, strings.Join(ids[:maxCandidates], ", "))
	}
	return "", fmt.Errorf("bundle %s: prefix of %d bundles: %s", arg, len(ids), strings.Join(ids, ", "))
}

// readManifest reads the manifest of the bundle a user named.
func readManifest(ctx context.Context, st store.Store, id string) (*bundle.Manifest, error) {
	if err := checkBundleID(id); err != nil {
		return nil, err
	}
	m, err := bundle.ReadManifest(ctx, st, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w (see floorbench bundle ls)", err)
	}
	return m, err
}

// readResults reads the results of the bundle a user named.
func readResults(ctx context.Context, st store.Store, id string) (*bundle.Results, error) {
	if err := checkBundleID(id); err != nil {
		return nil, err
	}
	return bundle.ReadResults(ctx, st, id)
}

func newBundleLsCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{Use: "ls", Short: "List bundles, newest first", Args: cobra.NoArgs}
	outputFlag(cmd, &output, statusFormats)
	return withStore(cmd, func(ctx context.Context, st store.Store, _ []string) error {
		manifests, err := bundle.List(ctx, st)
		if err != nil {
			return err
		}
		if output == "json" {
			return writeJSON(cmd.OutOrStdout(), manifests)
		}
		t := &report.Table{Header: []string{"bundle", "created", "name", "corpora", "systems"}, Labels: 5}
		for _, m := range manifests {
			var corpora, systems []string
			for _, in := range m.Inputs {
				if in.Kind == "corpus" {
					corpora = append(corpora, in.Name)
				} else {
					systems = append(systems, in.Name)
				}
			}
			t.Rows = append(t.Rows, []string{m.BundleID, m.Created, m.Name, strings.Join(corpora, ","), strings.Join(systems, ",")})
		}
		return t.Text(cmd.OutOrStdout())
	})
}

func newBundleShowCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "show BUNDLE_ID",
		Short: "Print a bundle's report (or its results with -o json); the id may be a unique prefix or latest",
		Long: `Show prints a bundle's report.md (text and md alike: the report is
Markdown), its results.json with -o json, and the report's tables, in the
report's order, with -o csv (separated by a blank line) or -o latex.`,
		Args: cobra.ExactArgs(1),
	}
	outputFlag(cmd, &output, resultFormats)
	return withStore(cmd, func(ctx context.Context, st store.Store, args []string) error {
		id, err := resolveBundleID(ctx, st, args[0])
		if err != nil {
			return err
		}
		if _, err := readManifest(ctx, st, id); err != nil {
			return err
		}
		if output == "csv" || output == "latex" {
			res, err := readResults(ctx, st, id)
			if err != nil {
				return err
			}
			var parts []resultPart
			for _, t := range bundle.ReportTables(res) {
				parts = append(parts, tablePart(t))
			}
			return writeResult(cmd.OutOrStdout(), output, parts...)
		}
		name := "report.md"
		if output == "json" {
			name = keys.ResultsFile
		}
		data, err := store.GetBytes(ctx, st, keys.Bundle(id, name))
		if err != nil {
			return err
		}
		_, err = cmd.OutOrStdout().Write(data)
		return err
	})
}

func newBundleGetCommand() *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{Use: "get BUNDLE_ID --out DIR", Short: "Copy every file of a bundle into a folder; the id may be a unique prefix or latest", Args: cobra.ExactArgs(1)}
	cmd.Flags().StringVar(&out, "out", "", "destination folder (created; must not exist or be empty unless --force)")
	cmd.Flags().BoolVar(&force, "force", false, "replace what is at --out (a file or folder), atomically")
	_ = cmd.MarkFlagRequired("out")
	return withStore(cmd, func(ctx context.Context, st store.Store, args []string) error {
		id, err := resolveBundleID(ctx, st, args[0])
		if err != nil {
			return err
		}
		if _, err := readManifest(ctx, st, id); err != nil {
			return err
		}
		if err := checkOutDir("--out", out, force); err != nil {
			return err
		}
		files, err := st.List(ctx, keys.Bundle(id, ""))
		if err != nil {
			return err
		}
		err = replaceDir(out, force, func(tmp string) error {
			for _, k := range files {
				data, err := store.GetBytes(ctx, st, k)
				if err != nil {
					return err
				}
				path := filepath.Join(tmp, filepath.FromSlash(strings.TrimPrefix(k, keys.Bundle(id, ""))))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(path, data, 0o644); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%d files of bundle %s in %s\n", len(files), id, out)
		return nil
	})
}

func newBundleFiguresCommand() *cobra.Command {
	var out, format string
	var force bool
	cmd := &cobra.Command{
		Use:   "figures BUNDLE_ID --out DIR",
		Short: "Draw a bundle's figures into a folder (SVG, or PNG with --format png); the id may be a unique prefix or latest",
		Args:  cobra.ExactArgs(1),
	}
	cmd.Flags().StringVar(&out, "out", "", "destination folder (created; must not exist or be empty unless --force)")
	cmd.Flags().StringVar(&format, "format", "svg", "svg or png")
	cmd.Flags().BoolVar(&force, "force", false, "replace what is at --out (a file or folder), atomically")
	_ = cmd.MarkFlagRequired("out")
	return withStore(cmd, func(ctx context.Context, st store.Store, args []string) error {
		if !slices.Contains(figure.Formats, format) {
			return fmt.Errorf("--format %q: want svg or png", format)
		}
		id, err := resolveBundleID(ctx, st, args[0])
		if err != nil {
			return err
		}
		res, err := readResults(ctx, st, id)
		if err != nil {
			return err
		}
		if err := checkOutDir("--out", out, force); err != nil {
			return err
		}
		files, err := bundle.RenderFigures(res, format)
		if err != nil {
			return err
		}
		err = replaceDir(out, force, func(tmp string) error {
			for _, f := range files {
				if err := os.WriteFile(filepath.Join(tmp, filepath.Base(f.Name)), f.Data, 0o644); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%d figures of bundle %s in %s\n", len(files), id, out)
		return nil
	})
}

func newBundleDiffCommand() *cobra.Command {
	var output string
	var tolerance float64
	var paired bool
	cmd := &cobra.Command{
		Use:   "diff OLD_ID NEW_ID",
		Short: "Compare two bundles system by system; exit non-zero on a regression",
		Long: `Diff compares test recall and fp_rate of every system, corpus and task in
both bundles. A regression is recall lower by more than --tolerance, an
fp_rate higher by more than --tolerance, a system that fell out of the
budget or lost its operating point or test result, or a system, corpus or
task that is gone from NEW_ID. Either id may be a unique prefix of a
bundle id or latest (the newest bundle). Differences in protocol, bootstrap or corpus
content between the bundles are printed on stderr before the verdicts.

With --paired (the default when both bundles scored some of the same test
conversations) the comparison is paired (docs/protocol.md#paired-comparisons):
new minus old recall, recall within each latency budget and fp_rate with
their 95% CIs and p-values from one conversation bootstrap over the
conversations both scored. A regression is then a recall or
recall-within-budget CI wholly below -tolerance, an fp_rate CI wholly above
+tolerance, a system that left the budget or lost its operating point, or
one removed; improved is the mirror; a system with the same inputs and
results is identical, without resampling. --paired=false compares the
point estimates only.

Exit status: 0 no regression, 1 regression, 2 error (a missing bundle, a
bad flag).`,
		Example: `  floorbench bundle diff 3f2a latest
  floorbench bundle diff OLD NEW --tolerance 0.01 -o json`,
		Args: cobra.ExactArgs(2),
	}
	cmd.Flags().Float64Var(&tolerance, "tolerance", bundle.DefaultTolerance, "allowed change before a difference counts as a regression")
	cmd.Flags().BoolVar(&paired, "paired", false, "paired bootstrap verdicts with CIs (default: on when the bundles share test conversations)")
	outputFlag(cmd, &output, resultFormats)
	cmd = withStore(cmd, func(ctx context.Context, st store.Store, args []string) error {
		if err := bundle.CheckTolerance(tolerance); err != nil {
			return err
		}
		oldID, err := resolveBundleID(ctx, st, args[0])
		if err != nil {
			return err
		}
		newID, err := resolveBundleID(ctx, st, args[1])
		if err != nil {
			return err
		}
		old, err := readResults(ctx, st, oldID)
		if err != nil {
			return err
		}
		cur, err := readResults(ctx, st, newID)
		if err != nil {
			return err
		}
		for _, m := range bundle.Mismatches(old, cur) {
			fmt.Fprintln(cmd.ErrOrStderr(), "floorbench: bundles differ:", m)
		}
		if !cmd.Flags().Changed("paired") {
			paired = bundle.SharedConversations(old, cur) > 0
		}
		if paired {
			v := bundle.Paired(old, cur, bundle.PairedOptions{Tolerance: tolerance})
			if err := printVerdict(cmd.OutOrStdout(), v, output); err != nil {
				return err
			}
			if n := v.Regressions(); n > 0 {
				return exitError{1, fmt.Errorf("%d regression(s) from %s to %s", n, oldID, newID)}
			}
			return nil
		}
		d := bundle.Diff(old, cur, tolerance)
		if output == "json" {
			err = writeJSON(cmd.OutOrStdout(), d)
		} else {
			err = writeResult(cmd.OutOrStdout(), output, tablePart(diffTable(d)))
		}
		if err != nil {
			return err
		}
		if n := bundle.Regressions(d); n > 0 {
			return exitError{1, fmt.Errorf("%d regression(s) from %s to %s", n, oldID, newID)}
		}
		return nil
	})
	return withExitCode(cmd, 2)
}

func diffTable(d []bundle.Change) *report.Table {
	t := &report.Table{Header: []string{"corpus", "system", "task", "recall old", "recall new", "fp old", "fp new", "verdict"}, Labels: 3}
	for _, c := range d {
		t.Rows = append(t.Rows, []string{c.Corpus, c.System, string(c.Task), report.Rate(float64(c.OldRecall)), report.Rate(float64(c.NewRecall)),
			report.Rate(float64(c.OldFPRate)), report.Rate(float64(c.NewFPRate)), c.Verdict})
	}
	return t
}

// printVerdict writes a paired verdict: its summary line over its table,
// or verdict.json with -o json.
func printVerdict(w io.Writer, v *bundle.Verdict, output string) error {
	if output == "json" {
		return writeJSON(w, v)
	}
	summary := fmt.Sprintf("%s → %s: %s", v.Old, v.New, v.Summary())
	return writeResult(w, output, linesPart(summary), resultPart{table: v.Table(), joined: true})
}
