#!/usr/bin/env bash
# Reproduces floorgru, floorbench's own detector (models/floorgru), from a
# clean clone: builds floorbench, generates six draws of the train preset
# (seeds 4501 to 4506) and derives their gold, trains four members of the
# shipped recipe (train/floorgru.py's defaults) at seeds 4501 to 4504 with
# Debian's python3-torch, two at a time on one thread each (on a busy
# machine two threads a run were several times slower), joins them into
# one model that gives their mean (train/floorgru.py ensemble), exports it
# to ONNX, and records its probabilities on one tiny-corpus conversation,
# the values the Go test (internal/detect/floorgru_test.go) holds
# floorbench's run of the file to.
# With --no-rest it trains the ablation instead: the same four members on
# their own channel only, joined the same way (WORKDIR/model-own).
# About a minute of generation per draw on a quiet machine and about
# 35 min of training on its two cores: four members of about 17 min, two
# at a time (models/floorgru/README.md has the measured run).
#
#   scripts/train.sh [WORKDIR [--no-rest]]   (default /tmp/floorbench-train)
#
# WORKDIR keeps the corpus, the gold, each member's weights and log, the
# joined model and its training.json (every member's losses per epoch and
# time); copy WORKDIR/model/floorgru.onnx, training.json and
# floorgru-tiny.json into models/floorgru/ and internal/detect/testdata/
# to ship a new model.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-/tmp/floorbench-train}
REST=${2:---rest}
PY=${PYTHON:-/usr/bin/python3}
mkdir -p "$W"
# A fresh machine with only Go: the C toolchain and Opus the build links,
# the speech programs the generator calls, and Debian's PyTorch.
FLOORBENCH_TOOLS=$(scripts/setup.sh base speech torch)
export FLOORBENCH_TOOLS
go build -o "$W/floorbench" ./cmd/floorbench
fb="$W/floorbench"
"$PY" -c 'import torch' || { echo "train.sh: $PY cannot import torch (scripts/setup.sh torch installs Debian's python3-torch for /usr/bin/python3)" >&2; exit 1; }

# Six draws of the train preset (seeds 4501 to 4506): 576 conversations,
# six times the claims one draw has.
args=()
for seed in 4501 4502 4503 4504 4505 4506; do
	dir="$W/train-$seed"
	if [ ! -f "$dir/corpus.json" ]; then
		rm -rf "$dir"
		nice -n 15 "$fb" corpus generate --preset train --seed "$seed" --out "$dir" --jobs 2 2> >(grep -v generating >&2)
	fi
	"$fb" gold --corpus "$dir" -o json > "$dir-gold.json"
	args+=(--corpus "$dir" --gold "$dir-gold.json")
done

# The members' seeds, and their folders' suffix (-own for the ablation).
seeds=(4501 4502 4503 4504)
sfx="" model="$W/model"
[ "$REST" = --no-rest ] && sfx=-own model="$W/model-own"

# One member: train/floorgru.py's recipe at one seed, its log beside it.
member() {
	local out="$W/member-$1$sfx"
	nice -n 15 "$PY" train/floorgru.py train "${args[@]}" --out "$out" "$REST" --seed "$1" --threads 1 > "$out.log" 2>&1 ||
		{ echo "train.sh: member $1 failed; its log: $out.log" >&2; return 1; }
}
# Two at a time (one per core), each pair waited for and checked.
pair() {
	local a b ra=0 rb=0
	member "$1" & a=$!
	member "$2" & b=$!
	wait "$a" || ra=$?
	wait "$b" || rb=$?
	[ "$ra" = 0 ] && [ "$rb" = 0 ]
}

members=()
for ((i = 0; i < ${#seeds[@]}; i += 2)); do
	pair "${seeds[i]}" "${seeds[i + 1]}"
	members+=(--member "$W/member-${seeds[i]}$sfx" --member "$W/member-${seeds[i + 1]}$sfx")
done
"$PY" train/floorgru.py ensemble --out "$model" "${members[@]}"

if [ ! -f "$W/tiny/corpus.json" ]; then
	rm -rf "$W/tiny"
	"$fb" corpus generate --preset tiny --seed 1 --out "$W/tiny" --jobs 2 2> >(grep -v generating >&2)
fi
"$PY" train/floorgru.py record --model "$model" --corpus "$W/tiny" --conversation tiny-05-3p-narrative --out "$model/floorgru-tiny.json"
sha256sum "$model/floorgru.onnx"
