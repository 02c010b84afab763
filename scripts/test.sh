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

# The packages whose own code shares memory between goroutines, each with
# tests that drive it: the in-process executor's errgroups and admission
# (inprocess), workers, watch and the dev server's stop (temporalclient,
# devserver), fan-outs (workflows), the activities' keepAlive and
# MemoryBudget, the stores, the ONNX runtime's lock (detect), the parallel
# bootstrap (score), scenario writing (agent), the protocol sessions
# (agent/proto) and the viewer's cache under concurrent requests. The whole
# suite under -race does not fit CI's 45 minutes (its -short half alone took
# 70 minutes here): the signal-processing packages slow down 8-14 times, the
# real-time agent packages miss their sessions' deadlines when slowed, and
# the command-line tests run the binary in child processes the detector
# does not see (docs/operations.md#what-ci-runs has the measurements).
race=(./activities ./internal/inprocess ./internal/temporalclient ./internal/devserver ./workflows ./internal/store ./internal/detect ./internal/score
	./internal/agent ./internal/agent/proto ./internal/viewer)
go test -count=1 -race -timeout 40m "${race[@]}"
mapfile -t plain < <(go list ./... | grep -vxF -f <(go list "${race[@]}"))
# cmd/floorbench runs whole processes against real servers: on a loaded
# two-core machine it outlasts go test's default 10 min per package.
go test -count=1 -timeout 40m "${plain[@]}"
