#!/usr/bin/env bash
# Builds floorbench into a folder (default the repository's bin/), extra arguments going to
# go build (-ldflags ...): floorbench-full, every command, and floorbench,
# the front: the scoring and corpus commands, which start without
# initialising Temporal, Kubernetes, S3 or plotting, and the others
# handed to floorbench-full beside it (docs/performance.md#start-time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/bin}")
shift || true
cd "$root"
mkdir -p "$out"
# floorbench-full links libopus (the moshi protocol): its headers first.
scripts/setup.sh opus >/dev/null
go build -buildvcs=auto "$@" -o "$out/floorbench-full" ./cmd/floorbench
go build -buildvcs=auto -tags floorbench_light "$@" -o "$out/floorbench" ./cmd/floorbench
