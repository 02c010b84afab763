// Command floorbench evaluates floor control (end of turn, interruption) in
// spoken dialogue: it builds gold sets, scores predictions, sweeps thresholds
// and ranks systems under the MPTB and TurnBench protocols.
package main

import (
	"errors"
	"fmt"
	"os"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "floorbench:", err)
		os.Exit(exitCode(err))
	}
}

// exitError is a failure with its own exit status; any other exits 1.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func exitCode(err error) int {
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return 1
}
