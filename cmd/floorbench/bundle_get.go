//go:build !floorbench_light

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/figure"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
)

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
