#!/usr/bin/env bash
# Installs what floorbench's tests and quickstart need, pinned and cached.
# Idempotent: a component already present at its pinned version is skipped.
#
#   scripts/setup.sh [component...]     (default: test)
#
# Components:
#   speech   espeak-ng, flite and sox from Debian (programs; never linked)
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

components=("$@")
[ ${#components[@]} -eq 0 ] && components=(test)
for c in "${components[@]}"; do
	case "$c" in
	speech) setup_speech ;;
	test) setup_speech ;;
	*) echo "setup: unknown component $c" >&2; exit 2 ;;
	esac
done
echo "$TOOLS"
