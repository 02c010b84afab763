#!/usr/bin/env bash
# Fuzzes every parser of outside input for the given time each (default 30s).
set -euo pipefail
cd "$(dirname "$0")/.."
time=${1:-30s}
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "== $pkg $target"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" "$pkg"
	done
done
