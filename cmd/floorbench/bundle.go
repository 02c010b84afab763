//go:build !floorbench_light

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/store"
)

func init() { subcommands = append(subcommands, newBundleCommand) }

func newBundleCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bundle",
		Short: fullOnly["bundle"],
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newBundleLsCommand(), newBundleShowCommand(), newBundleGetCommand(), newBundleFiguresCommand(), newBundleDiffCommand())
	return cmd
}

// withStore adds the store flags and opens the store for run.
func withStore(cmd *cobra.Command, run func(ctx context.Context, st store.Store, args []string) error) *cobra.Command {
	return withStoreLimits(cmd, func(ctx context.Context, st store.Store, _ limits.Limits, args []string) error {
		return run(ctx, st, args)
	})
}

// withStoreLimits is withStore for a run that also reads under the
// configuration's limits.
func withStoreLimits(cmd *cobra.Command, run func(ctx context.Context, st store.Store, lim limits.Limits, args []string) error) *cobra.Command {
	config := storeFlags(cmd)
	withServices(cmd, config, func(sv *services, args []string) error {
		cfg, err := sv.Config()
		if err != nil {
			return err
		}
		st, err := sv.Store()
		if err != nil {
			return err
		}
		return run(sv.ctx, st, cfg.Limits, args)
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
