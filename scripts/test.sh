#!/usr/bin/env bash
# Runs every test: installs what the tests need (scripts/setup.sh), vets
# and statically checks all packages, then tests them with the real tools
# required, not skipped: the packages in `race` under the race detector,
# the others without it, each package once.
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

# The packages whose own code shares memory between goroutines run under
# the race detector, each with tests that drive it: the in-process
# executor's errgroups and admission (inprocess), workers, watch and the
# dev server's stop (temporalclient, devserver), fan-outs (workflows), the
# activities' keepAlive and MemoryBudget, the stores, the ONNX runtime's
# lock (detect), the parallel bootstrap (score), scenario writing (agent),
# the protocol sessions (agent/proto) and the viewer's cache under
# concurrent requests. internal/temporalclient runs -short under the
# detector: its sweeps through a Temporal dev server that play agents in
# real time, slowed 5-10 times, miss their sessions' deadlines and outlast
# the 40-minute package timeout (they run in the plain pass below, with the
# rest of the package). The whole suite under -race does not fit CI's 45
# minutes: the signal-processing packages slow down 8-14 times and the
# command-line tests run the binary in child processes the detector does
# not see (docs/operations.md#what-ci-runs has the measurements).
race=(./activities ./internal/inprocess ./internal/devserver ./workflows ./internal/store ./internal/detect ./internal/score
	./internal/agent ./internal/agent/proto ./internal/viewer)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
go test -count=1 -race -short -timeout 40m ./internal/temporalclient >"$log" 2>&1 &
client=$!
status=0
go test -count=1 -race -timeout 40m "${race[@]}" || status=$?
wait "$client" || status=$?
cat "$log"
[ "$status" -eq 0 ] || exit "$status"
# Everything else, and internal/temporalclient whole, without the detector.
# cmd/floorbench runs whole processes against real servers: on a loaded
# two-core machine it outlasts go test's default 10 min per package.
mapfile -t plain < <(go list ./... | grep -vxF -f <(go list "${race[@]}"))
go test -count=1 -timeout 40m "${plain[@]}"
# The seated known answer over realtime, again, alone on the machine: a
# realtime client plays a reply when it arrives, so that its counts equal
# the offline detector's needs a machine that keeps real time, which the
# passes above (every package at once, load 20 on two cores) do not
# always leave; there it logs a stall, here a stall fails
# (docs/agents.md#known-answer).
FLOORBENCH_STRICT_TIMING=1 go test -count=1 -run 'TestSeatedReferenceAgentDecidesAsTheOfflineDetector/realtime' ./internal/agent/seated
