//go:build floorbench_light

package main

import "github.com/spf13/cobra"

func init() {
	ingestSubcommands = append(ingestSubcommands, func() *cobra.Command {
		return handedToFull(ingestTurnBenchUse, ingestTurnBenchShort)
	})
}
