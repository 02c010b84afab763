package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/detect"
)

func init() { subcommands = append(subcommands, newSystemsCommand) }

func newSystemsCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "systems",
		Short: "List the built-in detector systems with their parameters and defaults",
		Long: `Systems lists the detector families (docs/architecture.md#detectors) that detect can run by name
(--system NAME) or from a spec file (--system-spec FILE), with every
parameter, its kind, its default, its stage and what it does. A model
parameter changes the model's output; a floor parameter only how that
output becomes scores, so systems that differ only in floor parameters
share one model run (docs/architecture.md#detectors). A run parameter
(where a credential is found) says how a system runs and is not in its
hash. Set parameters with --param name=value or in the spec's params
section. The table ends with the published systems of MPTB's and
TurnBench's tables and how each runs here (docs/systems.md#published-systems);
-o json writes both: {"families": [...], "published": [...]}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output == "json" {
				return writeJSON(cmd.OutOrStdout(), systemsJSON{detect.Families(), detect.PublishedSystems()})
			}
			if err := systemsText(cmd.OutOrStdout(), detect.Families()); err != nil {
				return err
			}
			return publishedText(cmd.OutOrStdout(), detect.PublishedSystems())
		},
	}
	outputFlag(cmd, &output, statusFormats)
	return cmd
}

// systemsJSON is systems -o json: the families, then the published
// systems with their status.
type systemsJSON struct {
	Families  []detect.Family          `json:"families"`
	Published []detect.PublishedSystem `json:"published"`
}

func systemsText(w io.Writer, fams []detect.Family) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, f := range fams {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		model := ""
		if f.Model {
			model = " (runs an ONNX model)"
		}
		fmt.Fprintf(tw, "%s — %s%s\n", f.Name, f.Doc, model)
		for _, p := range f.Params {
			def := "required"
			if p.Default == "" {
				def = `""`
			} else if p.Default != nil {
				def = fmt.Sprint(p.Default)
			}
			stage := "-"
			if p.Stage != "" {
				stage = string(p.Stage)
			}
			if p.Run {
				stage = "run (not hashed)"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", p.Name, p.Kind, def, stage, p.Doc)
		}
	}
	return tw.Flush()
}

// publishedText lists the published systems with their status, after the
// families.
func publishedText(w io.Writer, systems []detect.PublishedSystem) error {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "published systems (docs/systems.md#published-systems)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range systems {
		tables := s.Tables
		if tables == "" {
			tables = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", s.Name, tables, s.Status, s.Runs)
	}
	return tw.Flush()
}
