#!/usr/bin/env bash
# Growth: how wall time and Temporal's orchestration overhead grow with the
# corpus and the number of systems. For each point the same sweep runs
# twice from an empty local store (BenchmarkOrchestrationOverhead): once
# with the activities called in process, once through a Temporal dev
# server and an in-process worker. Corpus fractions are subsets of the
# full mptb preset that keep its composition (scripts/corpussubset).
#
#   scripts/growth.sh [WORKDIR]        (default /tmp/floorbench-growth)
#
# Environment:
#   POINTS="8:3 4:3 2:3 1:3 4:6 4:12"   each FRACTION:SYSTEMS, 8 = 1/8 of the corpus
#   RESAMPLES=1000                      bootstrap resamples
#   RUNS=2                              runs of each path per point, taking
#                                       turns at going first (figures are means)
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-/tmp/floorbench-growth}
POINTS=${POINTS:-"8:3 4:3 2:3 1:3 4:6 4:12"}
RESAMPLES=${RESAMPLES:-1000}
RUNS=${RUNS:-2}
mkdir -p "$W"
FLOORBENCH_TOOLS=$(scripts/setup.sh quickstart temporal | tail -1)
export FLOORBENCH_TOOLS
go build -buildvcs=auto -o "$W/floorbench" ./cmd/floorbench
go test -c -o "$W/temporalclient.test" ./internal/temporalclient
go build -o "$W/corpussubset" ./scripts/corpussubset
[ -f "$W/mptb/corpus.json" ] || { rm -rf "$W/mptb"; "$W/floorbench" corpus generate --preset mptb --seed 1 --out "$W/mptb" --jobs "$(nproc)" >/dev/null; }
mapfile -t variants < <(grep -v "^#" scripts/labscale-systems.txt)

printf '| corpus | conversations | systems | in process | through Temporal | overhead | dev server CPU |\n|---|---|---|---|---|---|---|\n' | tee "$W/growth.md"
for p in $POINTS; do
	every=${p%%:*} systems=${p##*:}
	dir="$W/mptb"
	if [ "$every" != 1 ]; then
		dir="$W/mptb-1of$every"
		[ -f "$dir/corpus.json" ] || { rm -rf "$dir"; "$W/corpussubset" -in "$W/mptb" -out "$dir" -every "$every"; }
	fi
	convs=$(grep -o '"id":' "$dir/corpus.json" | wc -l)
	spec="$W/spec-$every-$systems.yaml"
	{
		echo "name: growth-$every-$systems"
		echo "corpora:"
		echo "  - {name: mptb, path: $dir}"
		echo "systems:"
		for s in "${variants[@]:0:$systems}"; do echo "  - $s"; done
		echo "bootstrap: {resamples: $RESAMPLES, seed: 1}"
	} >"$spec"
	out=$(cd internal/temporalclient && FLOORBENCH_BENCH_SPEC="$spec" "$W/temporalclient.test" -test.run '^$' -test.bench OrchestrationOverhead -test.benchtime "${RUNS}x")
	echo "$out" >"$W/bench-$every-$systems.txt"
	metric() { echo "$out" | grep -o "[0-9.e+-]* $1" | head -1 | cut -d' ' -f1; }
	frac="1/$every"; [ "$every" = 1 ] && frac=all
	printf '| %s | %d | %d | %.0f s | %.0f s | %.1f%% | %.1f s |\n' "$frac" "$convs" "$systems" \
		"$(metric s-in-process)" "$(metric s-temporal)" "$(metric %overhead)" "$(metric cpu-s-server)" | tee -a "$W/growth.md"
done
