// Command floorbench evaluates floor control (end of turn, interruption) in
// spoken dialogue: it builds gold sets, scores predictions, sweeps thresholds
// and ranks systems under the MPTB and TurnBench protocols.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "floorbench:", err)
		os.Exit(1)
	}
}
