#!/usr/bin/env bash
# Runs every test: installs what the tests need (scripts/setup.sh), then
# vets and tests all packages with the real tools required, not skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
FLOORBENCH_TOOLS=$(scripts/setup.sh test)
export FLOORBENCH_TOOLS FLOORBENCH_REQUIRE_TOOLS=1
go vet ./...
# cmd/floorbench runs whole processes against real servers: on a loaded
# two-core machine it outlasts go test's default 10 min per package.
go test -count=1 -timeout 40m ./...
