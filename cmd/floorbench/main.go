package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

func main() {
	stopProfile, err := startCPUProfile(os.Getenv(cpuProfileEnv))
	if err == nil {
		var stopHeap func() error
		if stopHeap, err = startHeapProfile(os.Getenv(heapProfileEnv)); err == nil {
			err = newRootCommand().Execute()
			err = errors.Join(err, stopHeap())
		}
		err = errors.Join(err, stopProfile())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "floorbench:", oneLine(err.Error()))
		code := 1
		var e exitError
		if errors.As(err, &e) {
			code = e.code
		}
		os.Exit(code)
	}
}

// exitError is an error with the exit status it ends the process with
// (1 when an error carries none).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// oneLine keeps an error on one line, whatever it quotes (a path or an id
// with a newline in it, a server's multi-line message): line breaks are
// written as \n.
func oneLine(msg string) string {
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(strings.TrimSpace(msg))
}
