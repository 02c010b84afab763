// Command maxrss runs a command and prints its peak resident set size in
// bytes on stderr's last line. Linux keeps a process's peak across fork and
// exec, so a command started by a large process (a Go test) reports at
// least that process's size; started from this small one, it reports its
// own.
//
//	maxrss COMMAND [ARG...]
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "maxrss %d\n", cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss*1024)
	os.Exit(cmd.ProcessState.ExitCode())
}
