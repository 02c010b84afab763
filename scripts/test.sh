#!/usr/bin/env bash
# Runs every test: installs what the tests need (scripts/setup.sh), vets
# and statically checks all packages, then tests them with the real tools
# required, not skipped, every package under the race detector, and the
# packages in `short` once more without it.
set -euo pipefail
cd "$(dirname "$0")/.."
FLOORBENCH_TOOLS=$(scripts/setup.sh test)
export FLOORBENCH_TOOLS FLOORBENCH_REQUIRE_TOOLS=1
go vet ./...
"$FLOORBENCH_TOOLS/bin/staticcheck" ./...
# The floorbench front (scripts/build.sh) is cmd/floorbench built with this
# tag: its own file and what it leaves out are checked too.
go vet -tags floorbench_light ./cmd/floorbench
"$FLOORBENCH_TOOLS/bin/staticcheck" -tags floorbench_light ./cmd/floorbench

# Every package runs under the race detector; the real-time agent
# packages play their sessions on a testing/synctest bubble's fake clock,
# so the detector's slowdown changes how long they take and nothing they
# decide (under it each bubble runs on one P, testenv.Synctest: the
# workaround for golang/go#78156). The packages in `short` run under it
# with -short, beside the rest, their heavy cases skipped (each skip says
# so), and whole once more without it below: internal/temporalclient,
# whose sweeps play agents over sockets through a Temporal dev server on
# the wall clock and under the detector outlast the 40-minute package
# timeout; internal/synth, whose preset-wide generations slow down 8-14
# times; and cmd/floorbench, 6 minutes plain, most of it in floorbench
# child processes built without the detector, whose code it checks in
# the packages' own tests (docs/operations.md#what-ci-runs: the costs).
short=(./internal/temporalclient ./internal/synth ./cmd/floorbench)
mapfile -t race < <(go list ./... | grep -vxF -f <(go list "${short[@]}"))
log=$(mktemp)
trap 'rm -f "$log"' EXIT
go test -count=1 -race -short -timeout 40m "${short[@]}" >"$log" 2>&1 &
shortpid=$!
status=0
go test -count=1 -race -timeout 40m "${race[@]}" || status=$?
wait "$shortpid" || status=$?
cat "$log"
[ "$status" -eq 0 ] || exit "$status"
# The packages of `short` whole, without the detector.
go test -count=1 -timeout 40m "${short[@]}"
