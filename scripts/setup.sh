#!/usr/bin/env bash
# Installs what floorbench's tests and quickstart need, pinned and cached.
# Idempotent: a component already present at its pinned version is skipped.
#
#   scripts/setup.sh [component...]     (default: test)
#
# Components:
#   speech   espeak-ng, flite and sox from Debian (programs; never linked)
#   onnx     ONNX Runtime's shared library (npm onnxruntime-node) and the
#            Silero VAD v5 model (npm @ricky0123/vad-web), sha256-checked
#   temporal the Temporal CLI (dev server), built from the Go module proxy
#   minio    the MinIO server, built from the Go module proxy
#   quickstart  what `floorbench quickstart` needs
#   test     every component the test suite needs
#
# Tools are cached in $FLOORBENCH_TOOLS (default ~/.cache/floorbench/tools),
# outside the work tree, so fresh clones on the same machine reuse them.
set -euo pipefail

TOOLS=${FLOORBENCH_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/floorbench/tools}
mkdir -p "$TOOLS"

log() { printf 'setup: %s\n' "$*" >&2; }

apt_install() {
	local missing=()
	for pkg in "$@"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "apt-get install ${missing[*]}"
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

setup_speech() { apt_install espeak-ng flite sox; }

# npm_extract PACKAGE@VERSION MEMBER DEST SHA256: takes one file out of an npm
# package with `npm pack` (the packages' install scripts download from the
# internet, so they are never run), checks its pinned sha256 and moves it into
# place atomically. A file already present with the right sum is kept.
npm_extract() {
	local spec=$1 member=$2 dest=$3 sum=$4
	if [ -f "$dest" ] && echo "$sum  $dest" | sha256sum -c --status; then
		return 0
	fi
	command -v npm >/dev/null || { echo "setup: npm is needed to fetch $spec" >&2; exit 1; }
	log "npm pack $spec ($member)"
	local tmp
	tmp=$(mktemp -d)
	(cd "$tmp" && npm pack --silent "$spec" >/dev/null && tar xzf ./*.tgz "$member")
	if ! echo "$sum  $tmp/$member" | sha256sum -c --status; then
		rm -rf "$tmp"
		echo "setup: $spec $member does not match its pinned sha256 $sum" >&2
		exit 1
	fi
	mkdir -p "$(dirname "$dest")"
	mv "$tmp/$member" "$dest.tmp" && mv "$dest.tmp" "$dest"
	rm -rf "$tmp"
}

# The paths below are the ones internal/detect looks for under
# $FLOORBENCH_TOOLS (detect.OnnxRuntimeLibraryPath, detect.SileroModelPath).
setup_onnx() {
	npm_extract onnxruntime-node@1.24.1 package/bin/napi-v6/linux/x64/libonnxruntime.so.1 \
		"$TOOLS/onnxruntime-1.24.1/libonnxruntime.so.1" \
		53ef1ac028dd1b05554b8da28d9159eb3876f99868193d2aaa6e67f0243c23d4
	npm_extract @ricky0123/vad-web@0.0.31 package/dist/silero_vad_v5.onnx \
		"$TOOLS/models/silero_vad_v5.onnx" \
		2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f
}

# go_tool NAME MODULE VERSION: build MODULE@VERSION into $TOOLS/bin/NAME
# unless that exact version is already there.
go_tool() {
	local name=$1 module=$2 version=$3
	local bin="$TOOLS/bin/$name" stamp="$TOOLS/bin/$name.version"
	if [ -x "$bin" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
		return 0
	fi
	log "building $name $version (a few minutes the first time)"
	mkdir -p "$TOOLS/bin"
	GOBIN="$TOOLS/bin" GOFLAGS=-mod=mod go install "$module@$version"
	echo "$version" >"$stamp"
}

# The Temporal CLI embeds the dev server. v1.5.1 is the newest release that
# builds from the module proxy (v1.9.1 needs an unpublished replace target).
setup_temporal() { go_tool temporal github.com/temporalio/cli/cmd/temporal v1.5.1; }

# MinIO publishes no tagged module versions; this pseudo-version is what
# @latest resolved to when it was pinned.
setup_minio() { go_tool minio github.com/minio/minio v0.0.0-20260212201848-7aac2a2c5b7c; }

components=("$@")
[ ${#components[@]} -eq 0 ] && components=(test)
for c in "${components[@]}"; do
	case "$c" in
	speech) setup_speech ;;
	temporal) setup_temporal ;;
	minio) setup_minio ;;
	onnx) setup_onnx ;;
	quickstart) setup_speech; setup_onnx; setup_temporal ;;
	test) setup_speech; setup_onnx; setup_temporal; setup_minio ;;
	*) echo "setup: unknown component $c" >&2; exit 2 ;;
	esac
done
echo "$TOOLS"
