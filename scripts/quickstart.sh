#!/usr/bin/env bash
# Runs the whole floorbench job end to end on embedded defaults: installs
# what it needs (scripts/setup.sh), builds the binaries (so that they record
# the code revision their outputs are keyed by) and runs `floorbench
# quickstart`, which starts and stops everything it uses.
set -euo pipefail
cd "$(dirname "$0")/.."
FLOORBENCH_TOOLS=$(scripts/setup.sh quickstart)
export FLOORBENCH_TOOLS
scripts/build.sh bin
exec bin/floorbench quickstart "$@"
