package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

func main() {
	stopProfile, err := startCPUProfile(os.Getenv(cpuProfileEnv))
	if err == nil {
		err = newRootCommand().Execute()
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

// withExitCode makes every error of cmd (its arguments, flags and run)
// exit with code, except errors that carry their own exit status.
func withExitCode(cmd *cobra.Command, code int) *cobra.Command {
	wrap := func(err error) error {
		var e exitError
		if err == nil || errors.As(err, &e) {
			return err
		}
		return exitError{code, err}
	}
	if args := cmd.Args; args != nil {
		cmd.Args = func(c *cobra.Command, a []string) error { return wrap(args(c, a)) }
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return wrap(err) })
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, a []string) error { return wrap(run(c, a)) }
	}
	if pre := cmd.PreRunE; pre != nil {
		cmd.PreRunE = func(c *cobra.Command, a []string) error { return wrap(pre(c, a)) }
	}
	return cmd
}

// oneLine keeps an error on one line, whatever it quotes (a path or an id
// with a newline in it, a server's multi-line message): line breaks are
// written as \n.
func oneLine(msg string) string {
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(strings.TrimSpace(msg))
}
