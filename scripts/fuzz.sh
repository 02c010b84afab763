#!/usr/bin/env bash
# Fuzzes every parser of outside input for a fixed time each: the first
# argument, else $FUZZTIME, else 30s. The run fails when a fuzz target of an
# outside-input parser listed below is missing, so one cannot be dropped
# silently.
# Minimising a new input is capped at 5s: with parquet and WAV seeds of tens
# of KB the default (60s) stalls the run at 0 execs/s while it minimises.
set -euo pipefail
cd "$(dirname "$0")/.."
time=${1:-${FUZZTIME:-30s}}
module=$(go list -m)
required=(
	internal/floor:FuzzParseGoldSet           # gold artifact
	internal/score:FuzzParseSubmission        # submission (predictions file)
	internal/score:FuzzParseProbs             # probability file
	internal/spec:FuzzParse                   # sweep spec
	internal/config:FuzzLoadConfig           # config file
	internal/corpus:FuzzParseTurnBenchAnnotations
	internal/corpus:FuzzParseManifest
	internal/ingest/turnbench:FuzzReadTurnBenchParquet
	internal/ingest/ami:FuzzParseNXTWords
	internal/ingest/ami:FuzzParseNXTSegments
	internal/ingest/ami:FuzzParseNXTDialogueActs
	internal/detect:FuzzParseSystem
	internal/detect:FuzzReadModelOutput       # stored model outputs
	internal/jsonio:FuzzFloats                # the fast path of probability tracks
	internal/agent/proto:FuzzParseDuplex        # duplex hello and events
	internal/agent/proto:FuzzParseRealtime      # realtime events and sessions
	internal/agent/proto:FuzzParseMoshi         # moshi messages and their Ogg Opus audio
	internal/agent/proto:FuzzPCM16RoundTrip     # audio frames of both protocols
	internal/openai:FuzzParseChatResponse       # a chat endpoint's completion
	internal/synth:FuzzParseScriptAnswer        # a chat model's script
	internal/backend:FuzzDecodeSpeech           # a speech endpoint's audio
)
ran=()
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "== $pkg $target"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" -fuzzminimizetime 5s "$pkg"
		ran+=("${pkg#"$module"/}:$target")
	done
done
for want in "${required[@]}"; do
	if [[ " ${ran[*]} " != *" $want "* ]]; then
		echo "fuzz.sh: fuzz target $want is missing" >&2
		exit 1
	fi
done
echo "fuzzed ${#ran[@]} targets for $time each"
