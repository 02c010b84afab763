#!/usr/bin/env bash
# Fuzzes every parser of outside input for the given time each (default 30s).
# Minimising a new input is capped at 5s: with parquet and WAV seeds of tens
# of KB the default (60s) stalls the run at 0 execs/s while it minimises.
set -euo pipefail
cd "$(dirname "$0")/.."
time=${1:-30s}
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "== $pkg $target"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" -fuzzminimizetime 5s "$pkg"
	done
done
