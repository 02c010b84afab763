package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/ingest/ami"
)

func init() { ingestSubcommands = append(ingestSubcommands, newIngestAMICommand) }

func newIngestAMICommand() *cobra.Command {
	var (
		o      ami.Options
		output string
	)
	cmd := &cobra.Command{
		Use:   "ami --nxt DIR --audio DIR --meetings FILE --out DIR",
		Short: "Ingest AMI meetings (NXT words, segments, dialogue acts; headset audio) with floorbench's floor rules",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Split != "dev" && o.Split != "test" {
				return fmt.Errorf("--split %q (want dev or test)", o.Split)
			}
			r, err := ami.Ingest(cmd.Context(), o)
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d meetings to %s\n\n", len(r.Meetings), o.Out)
			return r.WriteText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&o.NXT, "nxt", "", "AMI manual annotations folder (words/, segments/, dialogueActs/, ontologies/)")
	cmd.Flags().StringVar(&o.Audio, "audio", "", "headset audio: <DIR>/<meeting>/audio/<meeting>.Headset-<n>.wav or <DIR>/<meeting>.Headset-<n>.wav")
	cmd.Flags().StringVar(&o.Meetings, "meetings", "", "meeting list: one id a line, optional second column dev|test, # comments")
	cmd.Flags().StringVar(&o.Out, "out", "", "output folder (must be empty unless --force)")
	cmd.Flags().StringVar(&o.Split, "split", "test", "split of the meetings the list gives none")
	cmd.Flags().BoolVar(&o.Force, "force", false, "replace the corpus already in --out")
	outputFlag(cmd, &output, statusFormats)
	for _, f := range []string{"nxt", "audio", "meetings", "out"} {
		cmd.MarkFlagRequired(f)
	}
	return cmd
}
