#!/usr/bin/env bash
# Reproduces floorgru, floorbench's own detector (models/floorgru), from a
# clean clone: builds floorbench, generates the train preset (seed 4501)
# and derives its gold, trains the model with Debian's python3-torch on 2
# threads (seed 4501), exports it to ONNX, and records its probabilities
# on one tiny-corpus conversation, the values the Go test
# (internal/detect/floorgru_test.go) holds floorbench's run of the file to.
# With --no-rest it trains the ablation (own channel only) instead.
# About 8 min of generation and 36 min of training on 2 busy cores
# (2026-12-06, load average about 20; models/floorgru/README.md).
#
#   scripts/train.sh [WORKDIR [--no-rest]]   (default /tmp/floorbench-train)
#
# WORKDIR keeps the corpus, the gold, the weights and training.json (the
# losses per epoch and the run's time); copy WORKDIR/model/floorgru.onnx,
# training.json and floorgru-tiny.json into models/floorgru/ and
# internal/detect/testdata/ to ship a new model.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-/tmp/floorbench-train}
REST=${2:---rest}
PY=${PYTHON:-/usr/bin/python3}
mkdir -p "$W"
FLOORBENCH_TOOLS=$(scripts/setup.sh speech)
export FLOORBENCH_TOOLS
go build -o "$W/floorbench" ./cmd/floorbench
fb="$W/floorbench"
"$PY" -c 'import torch' || { echo "train.sh: needs PyTorch (Debian: apt-get install python3-torch)" >&2; exit 1; }

if [ ! -f "$W/train/corpus.json" ]; then
	rm -rf "$W/train"
	nice -n 15 "$fb" corpus generate --preset train --seed 4501 --out "$W/train" --jobs 2 2> >(grep -v generating >&2)
fi
"$fb" gold --corpus "$W/train" -o json > "$W/train-gold.json"

model="$W/model"
[ "$REST" = --no-rest ] && model="$W/model-own"
nice -n 15 "$PY" train/floorgru.py train --corpus "$W/train" --gold "$W/train-gold.json" --out "$model" "$REST" --seed 4501 --threads 2

if [ ! -f "$W/tiny/corpus.json" ]; then
	rm -rf "$W/tiny"
	"$fb" corpus generate --preset tiny --seed 1 --out "$W/tiny" --jobs 2 2> >(grep -v generating >&2)
fi
"$PY" train/floorgru.py record --model "$model" --corpus "$W/tiny" --conversation tiny-05-3p-narrative --out "$model/floorgru-tiny.json"
sha256sum "$model/floorgru.onnx"
