// Command floorbench evaluates floor control (end of turn, interruption) in
// spoken dialogue: it builds gold sets, scores predictions, sweeps thresholds
// and ranks systems under the MPTB and TurnBench protocols.
package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "floorbench:", oneLine(err.Error()))
		os.Exit(1)
	}
}

// oneLine keeps an error on one line, whatever it quotes (a path or an id
// with a newline in it, a server's multi-line message): line breaks are
// written as \n.
func oneLine(msg string) string {
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(strings.TrimSpace(msg))
}
