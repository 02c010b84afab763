#!/usr/bin/env bash
# Is the benchmark valid? Generates the full mptb preset (seed 1), compares
# its composition with the paper and its timing with Switchboard, says what
# its event logs predict for the holder-silence rule, audits it for
# trivial-rule shortcuts under both negative windows, and runs the papers'
# acoustic baselines (gates) and the silence-timeout endpointers on it
# through a sweep, with their error anatomy, as docs/corpora.md's "Is the
# benchmark valid?" reports. About an hour on 2 shared cores (generation
# 11 min of CPU-bound work, each sweep and audit several minutes).
#
#   scripts/validity.sh [WORKDIR [BEFORE]]   (default /tmp/floorbench-validity)
#
# BEFORE, optional, is a corpus of the same preset and seed made by an
# earlier generator version: its timing, holder-silence prediction and
# audit are printed beside this one's (the "before" of docs/corpora.md).
# Every output is kept in WORKDIR; summary.txt gathers the numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-/tmp/floorbench-validity}
BEFORE=${2:-}
mkdir -p "$W"
FLOORBENCH_TOOLS=$(scripts/setup.sh quickstart)
export FLOORBENCH_TOOLS
go build -buildvcs=auto -o "$W/floorbench" ./cmd/floorbench
fb="$W/floorbench"

# Generation: CPU time (user + system) against 1.2x generator version 1's
# 311.4 s on the project's 2-core machine (docs/corpora.md).
if [ ! -f "$W/mptb/corpus.json" ]; then
	rm -rf "$W/mptb"
	/usr/bin/time -v -o "$W/generate-time.txt" "$fb" corpus generate --preset mptb --seed 1 --out "$W/mptb" --jobs 2 2> >(grep -v generating >&2)
fi
if [ -f "$W/generate-time.txt" ]; then
	awk '/User time/ {u = $NF} /System time/ {s = $NF} /Elapsed/ {w = $NF}
		END {printf "generation: %.1f s CPU (user %.1f + system %.1f), %s wall; %.2fx generator version 1 (311.4 s), bar 1.20x: %s\n",
			u + s, u, s, w, (u + s) / 311.4, ((u + s) / 311.4 <= 1.2) ? "met" : "NOT MET"}' "$W/generate-time.txt" | tee "$W/generation.txt"
fi
sha256sum "$W/mptb/corpus.json"

# Composition: the five counts against the paper's, within 15% (hours 10%).
"$fb" corpus stats "$W/mptb" | tee "$W/stats.txt"
"$fb" corpus stats "$W/mptb" -o json | jq -r '
	[["hours", .hours, 6.89, 0.10],
	 ["EOT positives", .eot_positives, 3422, 0.15],
	 ["hold negatives", .hold_negatives, 241, 0.15],
	 ["INT positives", .int_positives, 367, 0.15],
	 ["INT negatives", .int_negatives, 1481, 0.15]][]
	| (.[1] / .[2] - 1) as $d
	| "composition \(.[0]): \(.[1] * 100 | round / 100) against the paper'"'"'s \(.[2]): \($d * 1000 | round / 10)% (within ±\(.[3] * 100)%: \(if ($d | fabs) <= .[3] then "met" else "NOT MET" end))"' |
	tee "$W/composition.txt"

# Timing against Switchboard (KS of handovers, pauses, the holder's
# reaction, each at most 0.10) and, on the audited split, what the event
# logs predict for the holder-silence rule.
"$fb" corpus timing "$W/mptb" | tee "$W/timing.txt"
awk '/ KS / {ks = $NF; name = $0; sub(/^ +/, "", name); sub(/  n=.*/, "", name)
	printf "KS %s: %s (at most 0.10: %s)\n", name, ks, (ks <= 0.10) ? "met" : "NOT MET"}' "$W/timing.txt" | tee "$W/ks.txt"
"$fb" corpus timing "$W/mptb" --split test | tail -n 6 | tee "$W/timing-test.txt"
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
/usr/bin/time -v -o "$W/quickstart-time.txt" "$fb" quickstart -f "$W/spec.yaml" --store-dir "$W/store" | tee "$W/leaderboard.txt"
awk '/Elapsed/ {w = $NF} /Maximum resident/ {m = $NF} END {printf "sweep (quickstart -f): %s wall, peak RSS %.1f GB\n", w, m / 1048576}' "$W/quickstart-time.txt" | tee "$W/sweep-time.txt"
# The same sweep ranked under the anchored window: every system picks its
# operating point again (the tracks are stored already).
sed 's/^name: mptb-validity$/name: mptb-validity-anchored\nprotocol: {negative_window: anchored}/' "$W/spec.yaml" > "$W/spec-anchored.yaml"
"$fb" quickstart -f "$W/spec-anchored.yaml" --store-dir "$W/store" | tee "$W/leaderboard-anchored.txt"
# The bundle's report: both windows' fp_rate, recall within each latency
# budget, and the error anatomy of every system (MPTB §F.8).
bundle=$(awk '/^bundle / {print $2}' "$W/leaderboard.txt")
"$fb" bundle show "$bundle" --config '' --store-dir "$W/store" > "$W/report.md"
"$fb" bundle show "$bundle" --config '' --store-dir "$W/store" -o json > "$W/results.json"
jq -r '.evaluations[] | .system as $s | .tasks[] | .task as $t | (.anatomy // [])[]
	| "anatomy \($s) \($t) \(.factor) \(.value): \(.metric) \(.rate * 1000 | round / 10)% (n=\(.n))"' \
	"$W/results.json" | tee "$W/anatomy.txt"

# The gates at their firing threshold (any θ below 1 on a 0/1 score: the
# sweep's first row), as the papers report them: recall and fp_rate on test.
"$fb" gold --corpus "$W/mptb" --split test -o json > "$W/gold-test.json"
for s in rms webrtcvad silero; do
	[ -f "$W/$s-test/probs-int.json" ] || "$fb" detect --system "$s" --corpus "$W/mptb" --split test --out "$W/$s-test" 2>/dev/null
	for t in eot int; do
		printf '%s %s firing: ' "$s" "$t"
		"$fb" sweep --gold "$W/gold-test.json" --probs "$W/$s-test/probs-$t.json" | awk 'NR == 2 {h = $0} NR == 4 {print; print "  (" h ")"; exit}'
	done
done | tee "$W/gates.txt"

# The same timing, prediction and audit for the earlier generator.
if [ -n "$BEFORE" ]; then
	"$fb" corpus timing "$BEFORE" | tee "$W/before-timing.txt"
	"$fb" corpus timing "$BEFORE" --split test | tail -n 6 | tee "$W/before-timing-test.txt"
	"$fb" corpus audit "$BEFORE" --bootstrap 1000 --seed 1 | tee "$W/before-audit.txt"
fi

# One page of what docs/corpora.md reports.
{
	cat "$W/generation.txt" "$W/composition.txt" "$W/ks.txt" 2>/dev/null
	echo "holder-silence prediction (event logs, test split):"
	cat "$W/timing-test.txt"
	grep -E '^(SHORTCUT|BLIND SPOT|reported, not flagged)' "$W/audit.txt" || true
	echo "best single-channel INT rule under the anchored window:"
	awk '/^INT trivial rules/ {on = 1} on && / anchored / && !/cross-channel/ && $NF == "in" {
		line = $0; sub(/ +anchored .*/, "", line); n = split($0, f, /  +/)
		for (i = 1; i <= n; i++) if (f[i] ~ /^[01]\.[0-9]+ \[/) {r = f[i] + 0; break}
		if (r > best) {best = r; name = line; row = f[i]}} END {printf "  %s: test recall %s\n", name, row}' "$W/audit.txt"
	cat "$W/sweep-time.txt" 2>/dev/null
	grep -E '^(EOT|INT) leaderboard|^[0-9]+ ' "$W/leaderboard.txt" "$W/leaderboard-anchored.txt" | sed 's/  */ /g'
	cat "$W/gates.txt" "$W/anatomy.txt"
	if [ -n "$BEFORE" ]; then
		echo "before ($BEFORE): holder-silence prediction (event logs, test split):"
		cat "$W/before-timing-test.txt"
		grep -E '^(SHORTCUT|BLIND SPOT)' "$W/before-audit.txt" || echo "before: audit flags no shortcut"
	fi
} > "$W/summary.txt"
cat "$W/summary.txt"
