#!/usr/bin/env bash
# Installs what floorbench's tests and quickstart need, pinned and cached.
# Idempotent: a component already present at its pinned version is skipped.
#
#   scripts/setup.sh [component...]     (default: test)
#
# Components:
#   speech   espeak-ng, flite and sox from Debian (programs; never linked)
#   temporal the Temporal CLI (dev server), built from the Go module proxy
#   minio    the MinIO server, built from the Go module proxy
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
	test) setup_speech ;;
	*) echo "setup: unknown component $c" >&2; exit 2 ;;
	esac
done
echo "$TOOLS"
