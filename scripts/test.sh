#!/usr/bin/env bash
# Runs every test: installs what the tests need (scripts/setup.sh), then
# vets and statically checks all packages and tests them with the real
# tools required, not skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
FLOORBENCH_TOOLS=$(scripts/setup.sh test)
export FLOORBENCH_TOOLS FLOORBENCH_REQUIRE_TOOLS=1
go vet ./...
"$FLOORBENCH_TOOLS/bin/staticcheck" ./...
go test -count=1 ./...
