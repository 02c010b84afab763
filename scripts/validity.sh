#!/usr/bin/env bash
# Is the benchmark valid? Generates the full mptb preset, compares its
# composition and timing with the paper and Switchboard, audits it for
# trivial-rule shortcuts, and runs the papers' acoustic baselines (gates)
# and the silence-timeout endpointers on it through a sweep, as the README's
# "Is the benchmark valid?" section reports. About 15 minutes on 2 cores.
#
#   scripts/validity.sh [WORKDIR]      (default /tmp/floorbench-validity)
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-/tmp/floorbench-validity}
mkdir -p "$W"
FLOORBENCH_TOOLS=$(scripts/setup.sh quickstart)
export FLOORBENCH_TOOLS
go build -buildvcs=auto -o "$W/floorbench" ./cmd/floorbench
fb="$W/floorbench"
[ -f "$W/mptb/corpus.json" ] || { rm -rf "$W/mptb"; /usr/bin/time -v "$fb" corpus generate --preset mptb --seed 1 --out "$W/mptb" --jobs 2 2> >(grep -v generating >&2); }
"$fb" corpus stats "$W/mptb" | tee "$W/stats.txt"
"$fb" corpus timing "$W/mptb" | tee "$W/timing.txt"
"$fb" corpus audit "$W/mptb" --bootstrap 1000 --seed 1 | tee "$W/audit.txt"
cat > "$W/spec.yaml" <<YAML
name: mptb-validity
corpora:
  - {name: mptb, path: $W/mptb}
systems:
  - {name: rms, builtin: rms}
  - {name: webrtcvad, builtin: webrtcvad}
  - {name: silero, builtin: silero}
  - {name: rms-endpointer, builtin: rms-endpointer}
  - {name: webrtcvad-endpointer, builtin: webrtcvad-endpointer}
  - {name: silero-endpointer, builtin: silero-endpointer}
bootstrap: {resamples: 1000, seed: 1}
YAML
/usr/bin/time -v "$fb" quickstart -f "$W/spec.yaml" --store-dir "$W/store" | tee "$W/leaderboard.txt"
# The gates at their firing threshold (any θ below 1 on a 0/1 score: the
# sweep's first row), as the papers report them: recall and fp_rate on test.
"$fb" gold --corpus "$W/mptb" --split test -o json > "$W/gold-test.json"
for s in rms webrtcvad silero; do
	[ -f "$W/$s-test/probs-int.json" ] || "$fb" detect --system "$s" --corpus "$W/mptb" --split test --out "$W/$s-test" 2>/dev/null
	for t in eot int; do
		printf '%s %s firing: ' "$s" "$t"
		"$fb" sweep --gold "$W/gold-test.json" --probs "$W/$s-test/probs-$t.json" | awk 'NR == 4 {print; exit}'
	done
done
