#!/usr/bin/env bash
# Lab scale: the full mptb preset through Temporal and MinIO, with one
# worker process per queue (cpu, synth, gpu), each in its own working
# directory, sharing nothing but the store; the sweep is submitted from a
# fourth directory (submit uploads the local corpus). Reports wall time,
# each worker's peak RSS and CPU time, the sweep's history events, the
# objects in the bucket and the sha256 of results.json.
#
#   scripts/labscale.sh [WORKDIR]            (default /tmp/floorbench-labscale)
#
# Environment:
#   SYSTEMS=3|6|12|24 systems in the sweep (default 12: the six built-ins and
#                     six parameter variants of them; 24 adds twelve floor
#                     variants of the default rms, webrtcvad and Silero
#                     models: growth in post-processing alone)
#   RESAMPLES=10000   bootstrap resamples
#   CHAOS=1           kill a random worker (SIGKILL) every 20-40 s and restart
#                     it, and stop MinIO for 10 s once; results.json must be
#                     byte-identical to the undisturbed run's
#   INPROCESS=1       (default without CHAOS) then run the same sweep in one
#                     process (submit --in-process) into a second bucket of
#                     the same MinIO: Temporal's overhead at this size, and
#                     results.json must be byte-identical
#   REUSE=1           after the Temporal run, submit a second sweep of the next
#                     SYSTEMS systems of scripts/labscale-systems.txt (with
#                     SYSTEMS=12: the twelve floor variants of the first
#                     twelve's models) to the same workers and bucket, and
#                     count each sweep's RunModel activities and the
#                     conversations a model ran on (the second's must be 0)
#   TEMPORAL=0        skip the Temporal run: only the in-process sweep (to
#                     compare two builds' in-process walls one after the other)
#   WATCH=0           wait for the result instead of following with watch
#   PROFILE=1         write each process's CPU profile (FLOORBENCH_CPU_PROFILE)
#                     and the in-process run's heap profile at its peak with
#                     a line a second of its memory (FLOORBENCH_HEAP_PROFILE)
#   WORKERS=1         one worker process on every queue (not with CHAOS)
#   WORKER_GOMAXPROCS=N  run each worker's Go code on at most N cores, as the
#                     chart does from a worker's CPU request of N
#   FLOORBENCH_BIN=F  measure the binary F (another build) instead of building
#                     this checkout; LABEL=NAME names the run's folder for it
#   FLOORBENCH_TOOLS  the tools folder; unset, scripts/setup.sh makes sure of
#                     the tools and names it
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-/tmp/floorbench-labscale}
SYSTEMS=${SYSTEMS:-12}
RESAMPLES=${RESAMPLES:-10000}
CHAOS=${CHAOS:-0}
INPROCESS=${INPROCESS:-$((1 - CHAOS))}
TEMPORAL=${TEMPORAL:-1}
REUSE=${REUSE:-0}
case "$TEMPORAL/$INPROCESS/$CHAOS" in
1/*/*|0/1/0) ;;
*) echo "TEMPORAL=0 runs only the in-process sweep: not with CHAOS=1 or INPROCESS=0" >&2; exit 2 ;;
esac
if [ "$REUSE/$TEMPORAL" = 1/0 ]; then echo "REUSE=1 submits its second sweep through Temporal: not with TEMPORAL=0" >&2; exit 2; fi
mapfile -t variants < <(grep -v "^#" scripts/labscale-systems.txt)
if [ "$REUSE" = 1 ] && [ $((2 * SYSTEMS)) -gt ${#variants[@]} ]; then
	echo "REUSE=1 needs $((2 * SYSTEMS)) systems in scripts/labscale-systems.txt, it has ${#variants[@]}" >&2
	exit 2
fi
WATCH=${WATCH:-1}
PROFILE=${PROFILE:-0}
WORKERS=${WORKERS:-3}
WORKER_GOMAXPROCS=${WORKER_GOMAXPROCS:-}
case "$WORKERS/$CHAOS" in
3/*) kinds=(cpu synth gpu) ;;
1/0) kinds=(all) ;;
*) echo "WORKERS=$WORKERS: want 3, or 1 without CHAOS" >&2; exit 2 ;;
esac
mkdir -p "$W"
if [ -z "${FLOORBENCH_TOOLS:-}" ]; then FLOORBENCH_TOOLS=$(scripts/setup.sh quickstart temporal minio | tail -1); fi
export FLOORBENCH_TOOLS
fb=${FLOORBENCH_BIN:-$W/floorbench}
[ -n "${FLOORBENCH_BIN:-}" ] || go build -buildvcs=auto -o "$fb" ./cmd/floorbench
[ -f "$W/mptb/corpus.json" ] || { rm -rf "$W/mptb"; "$fb" corpus generate --preset mptb --seed 1 --out "$W/mptb" --jobs "$(nproc)" 2>/dev/null; }

only=; [ "$TEMPORAL" = 0 ] && only=inprocess-only-
run="$W/run-${LABEL:+$LABEL-}$only$SYSTEMS-$RESAMPLES-chaos$CHAOS-watch$WATCH-workers$WORKERS${WORKER_GOMAXPROCS:+-procs$WORKER_GOMAXPROCS}"
rm -rf "$run"
mkdir -p "$run"/{submitter,inprocess,minio} "${kinds[@]/#/$run/worker-}"
pids=()
cleanup() {
	for p in "${pids[@]}" ${chaos_pid:-} ${minio_pid:-}; do kill "$p" 2>/dev/null || true; done
	pkill -INT -f "^$fb worker" 2>/dev/null || true
	# A MinIO the chaos loop restarted is that subshell's child.
	pkill -f "bin/minio server $run/minio" 2>/dev/null || true
	wait 2>/dev/null || true
}
trap cleanup EXIT

wait_port() { for _ in $(seq 300); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 never opened" >&2; return 1; }
export MINIO_ROOT_USER=floorbench MINIO_ROOT_PASSWORD=floorbench-secret MINIO_BROWSER=off
# Another server on MinIO's port would take this run's requests.
if (exec 3<>/dev/tcp/127.0.0.1/19000) 2>/dev/null; then echo "127.0.0.1:19000 is in use: stop that server first" >&2; exit 1; fi
start_minio() { "$FLOORBENCH_TOOLS/bin/minio" server "$run/minio" --address 127.0.0.1:19000 --console-address 127.0.0.1:19001 --quiet >>"$run/minio.log" 2>&1 & minio_pid=$!; wait_port 19000; }
start_minio
export FLOORBENCH_S3_ENDPOINT=127.0.0.1:19000 FLOORBENCH_S3_ACCESS_KEY=floorbench FLOORBENCH_S3_SECRET_KEY=floorbench-secret
# Builds before `store init` made their bucket on first use (FLOORBENCH_BIN).
store_init() { "$fb" store --help 2>/dev/null | grep -q "^  init " || return 0; "$fb" store init --config "" >/dev/null; }
profile() { [ "$PROFILE" = 1 ] && echo "$run/$1.pprof" || true; }
# MinIO restarted by the chaos loop is that subshell's child: find it by
# its command line.
minio_now() { pgrep -f "bin/minio server $run/minio" | head -1; }
# A process's user and system CPU seconds, from /proc/PID/stat (in ticks).
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); printf "%d", ($12 + $13) / hz}' "/proc/$1/stat" 2>/dev/null || echo 0; }
{
	echo "name: labscale-$SYSTEMS"
	echo "corpora:"
	echo "  - {name: mptb, path: $W/mptb}"
	echo "systems:"
	for s in "${variants[@]:0:$SYSTEMS}"; do echo "  - $s"; done
	echo "bootstrap: {resamples: $RESAMPLES, seed: 1}"
} >"$run/submitter/spec.yaml"

if [ "$TEMPORAL" = 1 ]; then
	"$FLOORBENCH_TOOLS/bin/temporal" server start-dev --headless --ip 127.0.0.1 --port 17233 --log-level warn --db-filename "$run/temporal.db" >"$run/temporal.log" 2>&1 &
	pids+=($!)
	wait_port 17233
	export FLOORBENCH_TEMPORAL_ADDRESS=127.0.0.1:17233 FLOORBENCH_TEMPORAL_NAMESPACE=default FLOORBENCH_S3_BUCKET=labscale
	store_init

	declare -A worker
	start_worker() { # kind, or all
		local queues=$1
		[ "$1" = all ] && queues=cpu,synth,gpu
		(cd "$run/worker-$1" && FLOORBENCH_CPU_PROFILE=$(profile "worker-$1") exec env ${WORKER_GOMAXPROCS:+GOMAXPROCS=$WORKER_GOMAXPROCS} /usr/bin/time -v -a -o "$run/worker-$1.time" "$fb" worker --config "" --queues "$queues" >>"$run/worker-$1.log" 2>&1) &
		worker[$1]=$!
	}
	for k in "${kinds[@]}"; do start_worker "$k"; done

	start=$(date +%s.%N)
	id=$(cd "$run/submitter" && "$fb" submit -f spec.yaml --config "" -o json | sed -n 's/.*"workflow_id": *"\([^"]*\)".*/\1/p')
	echo "submitted $id" >&2

	if [ "$CHAOS" = 1 ]; then
		(
			minio_stopped=0
			while sleep $((20 + RANDOM % 21)); do
				# Workers restarted below are children of another subshell:
				# find them by their command line.
				k=$(printf 'cpu\nsynth\ngpu\n' | shuf -n1)
				victim=$(pgrep -f "^$fb worker --config  --queues $k" | head -1 || true)
				if [ -n "$victim" ]; then kill -9 "$victim" && echo "chaos: killed the $k worker" >&2; fi
				if [ $minio_stopped = 0 ]; then
					kill "$minio_pid"; sleep 10; start_minio; minio_stopped=1; echo "chaos: restarted MinIO" >&2
				fi
			done
		) &
		chaos_pid=$!
		# A killed worker's /usr/bin/time exits too: restart workers that died.
		(while sleep 2; do for k in cpu synth gpu; do kill -0 "${worker[$k]}" 2>/dev/null || start_worker "$k"; done; done) &
		pids+=($!)
	fi

	if [ "$WATCH" = 1 ]; then
		"$fb" watch "$id" --config "" -o json >"$run/status.json"
	else
		"$FLOORBENCH_TOOLS/bin/temporal" workflow result --address 127.0.0.1:17233 -w "$id" >/dev/null
		"$fb" status "$id" --config "" -o json >"$run/status.json"
	fi
	end=$(date +%s.%N)
	[ -n "${chaos_pid:-}" ] && kill "$chaos_pid" 2>/dev/null || true
	bundle=$(sed -n 's/^  "bundle_id": *"\([^"]*\)".*/\1/p' "$run/status.json" | head -1)
	"$fb" bundle get "$bundle" --config "" --out "$run/bundle" >/dev/null
	temporal_cpu=$(cpu_s "${pids[0]}") minio_cpu=$(cpu_s "$(minio_now)")
	history_events() { "$FLOORBENCH_TOOLS/bin/temporal" workflow show --address 127.0.0.1:17233 -w "$1" -o json | grep -c '"eventId"'; }
	first=$(echo "${variants[0]}" | sed -n 's/^{name: \([^,]*\),.*/\1/p')
	events="sweep $(history_events "$id"), corpus $(history_events "$id/corpus-mptb"), evaluation of $first $(history_events "$id/eval-$first-mptb")"
	# model_runs ID: the RunModel activities of sweep ID's model stages
	# and the conversations a model ran on in them (the others' outputs
	# were stored); each result is {"Ran":N}, shown decoded or in base64.
	model_runs() {
		local wids
		wids=$("$FLOORBENCH_TOOLS/bin/temporal" workflow list --address 127.0.0.1:17233 --query "WorkflowType='ModelWorkflow'" -o json |
			grep -o '"workflowId": *"[^"]*"' | cut -d'"' -f4 | grep -F "$1/" || true)
		for w in $wids; do "$FLOORBENCH_TOOLS/bin/temporal" workflow show --address 127.0.0.1:17233 -w "$w" -o json; done >"$run/models-$2.json"
		local acts ran
		acts=$(grep -c '"name": *"RunModel"' "$run/models-$2.json" || true)
		ran=$({ grep -o '"Ran": *[0-9]*' "$run/models-$2.json"; grep -o '"data": *"[A-Za-z0-9+/=]*"' "$run/models-$2.json" | cut -d'"' -f4 | while read -r d; do echo "$d" | base64 -d 2>/dev/null; echo; done | grep -o '"Ran": *[0-9]*'; } | grep -o '[0-9]*$' | awk '{n += $1} END {print n + 0}')
		echo "$(echo "$wids" | grep -c . || true) model stages, $acts RunModel activities, a model ran on $ran conversations"
	}
	models_first=$(model_runs "$id" first)
	objects=$(find "$run/minio/labscale" -name xl.meta | wc -l)
	if [ "$REUSE" = 1 ]; then
		sed -e "s/^name: .*/name: labscale-$SYSTEMS-reuse/" -e '/^systems:/,$d' "$run/submitter/spec.yaml" >"$run/submitter/spec-reuse.yaml"
		{
			echo "systems:"
			for s in "${variants[@]:$SYSTEMS:$SYSTEMS}"; do echo "  - $s"; done
			echo "bootstrap: {resamples: $RESAMPLES, seed: 1}"
		} >>"$run/submitter/spec-reuse.yaml"
		start2=$(date +%s.%N)
		id2=$(cd "$run/submitter" && "$fb" submit -f spec-reuse.yaml --config "" -o json | sed -n 's/.*"workflow_id": *"\([^"]*\)".*/\1/p')
		"$FLOORBENCH_TOOLS/bin/temporal" workflow result --address 127.0.0.1:17233 -w "$id2" >/dev/null
		end2=$(date +%s.%N)
		models_second=$(model_runs "$id2" second)
	fi
	for k in "${kinds[@]}"; do kill -INT "$(pgrep -P "${worker[$k]}" -x "$(basename "$fb" | cut -c1-15)")" 2>/dev/null || true; done
	sleep 3

	{
		echo "systems $SYSTEMS, resamples $RESAMPLES, chaos $CHAOS, watch $WATCH, worker processes $WORKERS${WORKER_GOMAXPROCS:+, GOMAXPROCS $WORKER_GOMAXPROCS each}"
		printf 'wall %.0f s\n' "$(echo "$end - $start" | bc)"
		for k in "${kinds[@]}"; do
			awk -v k="$k" '/Maximum resident/ {m = ($6 > m ? $6 : m)} /User time/ {u += $4} /System time/ {s += $4} END {printf "worker %s: peak RSS %.0f MB, CPU %.0f s\n", k, m / 1024, u + s}' "$run/worker-$k.time"
		done
		echo "Temporal dev server CPU $temporal_cpu s, MinIO CPU $minio_cpu s (since its last start)"
		echo "history events: $events (Temporal warns at 10,240)"
		echo "objects in the bucket $objects"
		echo "the sweep's $models_first"
		if [ "$REUSE" = 1 ]; then
			printf 'second sweep (systems %d-%d of scripts/labscale-systems.txt): wall %.0f s, %s, objects in the bucket after it %d\n' $((SYSTEMS + 1)) $((2 * SYSTEMS)) "$(echo "$end2 - $start2" | bc)" "$models_second" "$(find "$run/minio/labscale" -name xl.meta | wc -l)"
		fi
		echo "results.json sha256 $(sha256sum "$run/bundle/results.json" | cut -c1-16)"
		# The bundle id hashes the code version too: runs of two builds compare
		# by their results without it.
		echo "results.json without bundle_id sha256 $(grep -v '"bundle_id"' "$run/bundle/results.json" | sha256sum | cut -c1-16)"
	} | tee "$run/summary.txt"
fi

if [ "$INPROCESS" = 1 ]; then
	# The same work in one process, no Temporal: the same spec uploaded
	# from its own folder into an empty bucket of the same MinIO.
	export FLOORBENCH_S3_BUCKET=labscale-inprocess
	store_init
	minio_before=$(cpu_s "$(minio_now)")
	start_in=$(date +%s.%N)
	(cd "$run/inprocess" && FLOORBENCH_CPU_PROFILE=$(profile inprocess) FLOORBENCH_HEAP_PROFILE=$(profile inprocess-heap) /usr/bin/time -v -o "$run/inprocess.time" "$fb" submit -f "$run/submitter/spec.yaml" --config "" --in-process -o json >"$run/inprocess.json")
	end_in=$(date +%s.%N)
	inbundle=$(sed -n 's/.*"bundle_id": *"\([^"]*\)".*/\1/p' "$run/inprocess.json")
	"$fb" bundle get "$inbundle" --config "" --out "$run/inprocess/bundle" >/dev/null
	same=no
	[ "$TEMPORAL" = 1 ] && cmp -s "$run/bundle/results.json" "$run/inprocess/bundle/results.json" && same=yes
	{
		printf 'in process (submit --in-process): wall %.0f s, ' "$(echo "$end_in - $start_in" | bc)"
		awk '/Maximum resident/ {m = $6} /User time/ {u = $4} /System time/ {s = $4} END {printf "peak RSS %.0f MB, CPU %.0f s\n", m / 1024, u + s}' "$run/inprocess.time"
		echo "MinIO CPU during it $(($(cpu_s "$(minio_now)") - minio_before)) s"
		echo "objects in its bucket $(find "$run/minio/labscale-inprocess" -name xl.meta | wc -l)"
		echo "its results.json without bundle_id sha256 $(grep -v '"bundle_id"' "$run/inprocess/bundle/results.json" | sha256sum | cut -c1-16)"
		if [ "$TEMPORAL" = 1 ]; then
			printf 'overhead of Temporal and %s worker process(es): %+.1f%%\n' "$WORKERS" "$(echo "100 * (($end - $start) - ($end_in - $start_in)) / ($end_in - $start_in)" | bc -l)"
			echo "results.json identical to the Temporal run's: $same"
		fi
	} | tee -a "$run/summary.txt"
	[ "$TEMPORAL" = 0 ] || [ "$same" = yes ]
fi
