#!/usr/bin/env bash
# GPU against CPU: the model stage of Silero (the built-in silero system)
# and of an onnx system (Silero v5 through the generic onnx family,
# internal/detect/testdata/silero-onnx.yaml) over a preset's corpus, run in
# process (submit --in-process) with FLOORBENCH_DEVICE=cpu and, where
# nvidia-smi finds a GPU, FLOORBENCH_DEVICE=cuda on the same machine;
# prints each model stage's wall and CPU time and its throughput in
# channel-seconds per wall-second (docs/performance.md#gpu).
#
#   scripts/gpu.sh [WORKDIR]                 (default /tmp/floorbench-gpu)
#
# A model stage runs once per store for every system that maps its model's
# output, so each device gets a fresh store and, per model, two sweeps one
# after the other: the gate (the model stage, then its evaluation) and the
# endpointer on the same model (its evaluation alone, the stage reused);
# the stage is the difference. A first sweep of rms puts the corpus in the
# store, so that neither pays for the upload.
#
# Environment:
#   PRESET=mptb      corpus preset (tiny to try the script; generated once
#                    into WORKDIR/corpus-PRESET)
#   DEVICES          devices to compare (default: cpu, and cuda where
#                    nvidia-smi lists a GPU)
#   RESAMPLES=1000   bootstrap resamples of each sweep's evaluation
#   FLOORBENCH_TOOLS the tools folder; unset, scripts/setup.sh onnx speech
#                    (and onnx-cuda for cuda) makes sure of the tools
#   FLOORBENCH_BATCH_ROWS  rows per session call (default: the worker's,
#                    64 on cpu, 1,024 on cuda)
set -euo pipefail
cd "$(dirname "$0")/.."
W=$(realpath -m "${1:-/tmp/floorbench-gpu}")
PRESET=${PRESET:-mptb}
RESAMPLES=${RESAMPLES:-1000}
if [ -z "${DEVICES:-}" ]; then
	DEVICES=cpu
	if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
		DEVICES="cpu cuda"
	fi
fi
if [ -z "${FLOORBENCH_TOOLS:-}" ]; then
	components="onnx speech"
	case " $DEVICES " in *" cuda "*) components="$components onnx-cuda" ;; esac
	# shellcheck disable=SC2086
	FLOORBENCH_TOOLS=$(scripts/setup.sh $components)
fi
export FLOORBENCH_TOOLS
mkdir -p "$W"
scripts/build.sh "$W/bin"
fb="$W/bin/floorbench"

corpus="$W/corpus-$PRESET"
if [ ! -f "$corpus/corpus.json" ]; then
	echo "generating the $PRESET corpus into $corpus"
	"$fb" corpus generate --preset "$PRESET" --seed 1 --out "$corpus" >/dev/null
fi
channel_s=$(jq '[.conversations[] | .duration_s * .speakers] | add | floor' "$corpus/corpus.json")
onnx_spec=$(realpath internal/detect/testdata/silero-onnx.yaml)
nvidia-smi -L 2>/dev/null || true
echo "corpus $corpus: $(jq '.conversations | length' "$corpus/corpus.json") conversations, $channel_s channel-seconds; $(nproc) cores"

# sweep DEVICE NAME SYSTEM: runs a one-system sweep in process into
# DEVICE's store and prints its wall and CPU seconds.
sweep() {
	local device=$1 name=$2 system=$3 dir="$W/$1"
	cat >"$dir/$name.yaml" <<-EOF
		name: gpu-$name
		corpora:
		  - {name: $PRESET, path: $corpus}
		systems:
		  - $system
		bootstrap: {resamples: $RESAMPLES, seed: 1}
	EOF
	local runtime=()
	if [ "$device" = cuda ]; then
		runtime=(FLOORBENCH_ONNXRUNTIME="$FLOORBENCH_TOOLS/onnxruntime-cuda-1.29.0/libonnxruntime.so.1")
	fi
	env "${runtime[@]}" FLOORBENCH_DEVICE="$device" /usr/bin/time -f "%e %U %S %M" -o "$dir/$name.time" \
		"$fb" submit --in-process -f "$dir/$name.yaml" --config "" --store-dir "$dir/store" >"$dir/$name.out" 2>"$dir/$name.log"
	awk '{printf "%s %.1f\n", $1, $2 + $3}' "$dir/$name.time"
}

printf '%-6s %-8s %12s %12s %14s %22s\n' device model "stage wall" "stage CPU" "evaluation" "channel-s per wall-s"
for device in $DEVICES; do
	rm -rf "${W:?}/$device"
	mkdir -p "$W/$device"
	sweep "$device" corpus "{name: rms, builtin: rms}" >/dev/null
	for model in silero onnx; do
		if [ "$model" = silero ]; then
			gate="{name: silero, builtin: silero}"
			endpointer="{name: silero-endpointer, builtin: silero-endpointer}"
		else
			gate="{name: silero-onnx, spec: $onnx_spec}"
			endpointer="{name: silero-onnx-endpointer, spec: $onnx_spec, params: {floor_rule: endpointer}}"
		fi
		read -r wall_a cpu_a < <(sweep "$device" "$model" "$gate")
		read -r wall_b cpu_b < <(sweep "$device" "$model-reused" "$endpointer")
		awk -v d="$device" -v m="$model" -v wa="$wall_a" -v ca="$cpu_a" -v wb="$wall_b" -v cb="$cpu_b" -v ch="$channel_s" 'BEGIN {
			w = wa - wb
			printf "%-6s %-8s %10.1f s %10.1f s %12.1f s %22s\n", d, m, w, ca - cb, wb, (w > 0 ? sprintf("%.0f", ch / w) : "n/a")
		}'
	done
done
