// Command floorbench evaluates floor control (end of turn, interruption) in
// spoken dialogue: it builds gold sets, scores predictions, sweeps thresholds
// and ranks systems under the MPTB and TurnBench protocols (docs/cli.md).
//
// # Layout
//
// This package is the command-line layer and nothing else: each file holds
// one command or one family of subcommands (schedule_create.go,
// bundle_diff.go, agent_seat.go), its flags and how it prints, and adds
// itself to the root in an init function; the rules a command applies live
// in the packages it calls (a schedule's checks in internal/nightly, a
// bundle's reading in internal/bundle). It is the largest package because
// floorbench has about fifty commands and subcommands, each with its help
// text, examples and output formats; a command file holds one command, and the shared flag, service and output helpers (flags.go,
// services.go, output.go, result.go) keep the files themselves short.
//
// # Two builds
//
// The default build is floorbench-full, every command. Built with
// -tags floorbench_light (scripts/build.sh builds both) it is the front:
// the files of the commands that use Temporal, Kubernetes, the store or
// figures carry the constraint !floorbench_light and are left out, and
// front.go lists their commands (fullOnly) and hands them to
// floorbench-full, so that the scoring commands start in milliseconds
// (docs/performance.md#start-time).
package main
