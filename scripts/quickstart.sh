#!/usr/bin/env bash
# Runs the whole floorbench job end to end on embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
FLOORBENCH_TOOLS=$(scripts/setup.sh test)
export FLOORBENCH_TOOLS
go run ./cmd/floorbench quickstart "$@"
