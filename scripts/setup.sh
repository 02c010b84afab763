#!/usr/bin/env bash
# Installs what floorbench's tests and quickstart need, pinned and cached.
# Idempotent: a component already present at its pinned version is skipped.
#
#   scripts/setup.sh [component...]     (default: test)
#
# Components:
#   base     gcc, libc6-dev, git and ca-certificates, and opus
#   opus     libopus and libopusfile with headers and pkg-config (moshi's
#            Opus audio; floorbench-full links them)
#   speech   espeak-ng, flite, festival with three festvox voices and sox
#            from Debian (programs; never linked)
#   browser  Chromium from Debian, driven by the viewer's browser tests
#   latex    pdflatex and booktabs from Debian, which compile the -o latex
#            tables in tests
#   onnx     ONNX Runtime's shared library (npm onnxruntime-node) and the
#            Silero VAD v5 model (npm @ricky0123/vad-web), sha256-checked
#   temporal the Temporal CLI (dev server), built from the Go module proxy
#   minio    the MinIO server, built from the Go module proxy
#   quickstart  what `floorbench quickstart` needs
#   onnx-cuda  ONNX Runtime 1.29.0 with the CUDA provider (gpu image only)
#   kube     etcd and kube-apiserver (a control plane without kubelet), built
#            from the Go module proxy in tool modules under $FLOORBENCH_TOOLS
#   kubeschemas  JSON schemas of the Kubernetes 1.37 API for kubeconform,
#            generated from the swagger.json of the kube component's sources
#   helm     the Helm CLI
#   kubeconform  offline manifest validation against kubeschemas
#   staticcheck  the static analyser scripts/test.sh runs after go vet
#   openai-sdk  Node.js and the official OpenAI SDK (npm openai and ws,
#            pinned with their sha512 in scripts/openai-sdk/package-lock.json)
#   test     every component the test suite needs
#   torch    PyTorch from Debian (python3-torch), which only
#            scripts/train.sh needs; no test does
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

# festival's voices in the generator's inventory: slt (HTS), kal and ked
# (diphone).
setup_speech() { apt_install espeak-ng flite festival festvox-us-slt-hts festvox-kallpc16k festvox-kdlpc16k sox; }

setup_browser() { apt_install chromium; }

# pdflatex (texlive-latex-base) and booktabs, the one package the -o latex
# tables load (texlive-latex-recommended): about 48 MB to download, without
# the recommended fonts and documentation.
setup_latex() { apt_install texlive-latex-base texlive-latex-recommended; }

# libopus and libopusfile with their headers and pkg-config, which the moshi
# protocol's Opus binding (gopkg.in/hraban/opus.v2, cgo) builds and links
# against: floorbench-full needs them to build and to run.
setup_opus() { apt_install libopus-dev libopusfile-dev pkg-config; }

# A C toolchain for the cgo packages (WebRTC VAD, ONNX Runtime bindings,
# Opus) and git, whose revision the binaries record: a fresh machine may
# have only Go.
setup_base() { apt_install gcc libc6-dev git ca-certificates && setup_opus; }

# PyTorch from Debian, which trains floorgru (scripts/train.sh, train/);
# floorbench runs the exported ONNX file and no test imports torch.
setup_torch() { apt_install python3-torch; }

# npm_extract PACKAGE@VERSION MEMBER DEST SHA256: takes one file out of an npm
# package with `npm pack` (the packages' install scripts download from the
# internet, so they are never run), checks its pinned sha256 and moves it into
# place atomically. A file already present with the right sum is kept.
npm_extract() {
	local spec=$1 member=$2 dest=$3 sum=$4
	if [ -f "$dest" ] && echo "$sum  $dest" | sha256sum -c --status; then
		return 0
	fi
	command -v npm >/dev/null || apt_install npm
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

# ONNX Runtime with its CUDA execution provider, for the gpu worker image
# (Dockerfile.gpu; it needs the CUDA 13 runtime). No npm package ships
# onnxruntime-node's release with CUDA, so this takes release 1.29.0 whole from
# the Unity packages: the core library and the provider bridge from the base
# package, the CUDA provider from its GPU package. The three must come from one
# build; the CPU component (onnx) stays on its own release.
setup_onnx_cuda() {
	local dir="$TOOLS/onnxruntime-cuda-1.29.0" lib=package/Plugins/Linux/x64
	npm_extract com.github.asus4.onnxruntime@0.4.9 $lib/libonnxruntime.so "$dir/libonnxruntime.so.1" \
		5715f06d8992ca8eeeddcce43df3a7d38f97d537052126f558e912cb312460ca
	npm_extract com.github.asus4.onnxruntime@0.4.9 $lib/libonnxruntime_providers_shared.so \
		"$dir/libonnxruntime_providers_shared.so" \
		c6a12593396095f5670160e284c35d1700b7708cf3037b7042e2a5200ccae772
	npm_extract com.github.asus4.onnxruntime.linux-x64-gpu@0.4.9 $lib/libonnxruntime_providers_cuda.so \
		"$dir/libonnxruntime_providers_cuda.so" \
		56cf3254b118ad837ccc4ed8f6d1b23504bbf7ef91b34cbc0b289cb7f10b3037
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

# Kubernetes versions of the test control plane; the schemas the charts are
# validated against come from the same source tree (docs/operations.md#tools).
KUBE_VERSION=v1.37.2
KUBE_STAGING_VERSION=v0.37.2
ETCD_VERSION=v3.7.3

# tool_module DIR MODULE: a throwaway Go module under $TOOLS/src that pins a
# tool whose own go.mod cannot be built with go install (replace lines).
tool_module() {
	local dir="$TOOLS/src/$1"
	mkdir -p "$dir"
	printf 'module floorbench.tools/%s\n\ngo 1.26.0\n' "$1" >"$dir/go.mod"
	echo "$dir"
}

# etcd's server module carries replace lines, so it is built as a tool of a
# module of our own.
setup_etcd() {
	local bin="$TOOLS/bin/etcd"
	[ -x "$bin" ] && [ "$(cat "$bin.version" 2>/dev/null)" = "$ETCD_VERSION" ] && return 0
	log "building etcd $ETCD_VERSION"
	local dir
	dir=$(tool_module etcd)
	(cd "$dir" && GOFLAGS=-mod=mod go get -tool "go.etcd.io/etcd/server/v3@$ETCD_VERSION" &&
		GOFLAGS=-mod=mod go build -o "$bin" go.etcd.io/etcd/server/v3)
	echo "$ETCD_VERSION" >"$bin.version"
}

# k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them
# with local paths; the tool module points each at its published release.
# The ldflags give the server its real version (clients parse it).
setup_kube_apiserver() {
	local bin="$TOOLS/bin/kube-apiserver"
	[ -x "$bin" ] && [ "$(cat "$bin.version" 2>/dev/null)" = "$KUBE_VERSION" ] && return 0
	log "building kube-apiserver $KUBE_VERSION (about 8 minutes on 2 idle cores)"
	local dir m
	dir=$(tool_module kube-apiserver)
	(
		cd "$dir"
		for m in api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider \
			cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api \
			cri-client cri-streaming csi-translation-lib dynamic-resource-allocation endpointslice \
			externaljwt kms kube-aggregator kube-controller-manager kube-proxy kube-scheduler kubectl \
			kubelet metrics mount-utils pod-security-admission sample-apiserver streaming; do
			go mod edit -replace "k8s.io/$m=k8s.io/$m@$KUBE_STAGING_VERSION"
		done
		GOFLAGS=-mod=mod go get -tool "k8s.io/kubernetes/cmd/kube-apiserver@$KUBE_VERSION"
		local minor=${KUBE_VERSION#v1.}
		minor=${minor%%.*}
		local ldflags="" pkg
		for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
			ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
		done
		GOFLAGS=-mod=mod go build -ldflags "$ldflags" -o "$bin" k8s.io/kubernetes/cmd/kube-apiserver
	)
	echo "$KUBE_VERSION" >"$bin.version"
}

setup_kube() { setup_etcd && setup_kube_apiserver; }

# The swagger.json of the API server's own source tree describes every
# built-in kind; scripts/kubeschemas turns it into kubeconform's layout.
setup_kubeschemas() {
	# The program renames each directory into place when it is complete.
	[ -d "$TOOLS/kubeschemas/$KUBE_VERSION-standalone-strict" ] && return 0
	setup_kube_apiserver
	local swagger
	swagger="$(cd "$TOOLS/src/kube-apiserver" && go list -m -f '{{.Dir}}' k8s.io/kubernetes)/api/openapi-spec/swagger.json"
	log "generating Kubernetes $KUBE_VERSION schemas"
	(cd "$(dirname "$0")/.." && go run ./scripts/kubeschemas -swagger "$swagger" -out "$TOOLS/kubeschemas" -version "$KUBE_VERSION")
}

setup_helm() { go_tool helm helm.sh/helm/v3/cmd/helm v3.22.0; }
setup_kubeconform() { go_tool kubeconform github.com/yannh/kubeconform/cmd/kubeconform v0.8.0; }

# staticcheck is pinned like the other tools: a newer release may add checks,
# and a check that appears on its own must not turn CI red.
setup_staticcheck() { go_tool staticcheck honnef.co/go/tools/cmd/staticcheck v0.8.2; }

# The official OpenAI SDK, which a test connects to the reference agent over
# wss:// (docs/agents.md#tls): npm ci installs exactly the lock file's
# versions, checking each package's sha512, and runs no install script.
setup_openai_sdk() {
	local dir="$TOOLS/openai-sdk-7.60.0" src
	src=$(cd "$(dirname "$0")/openai-sdk" && pwd)
	if [ -f "$dir/node_modules/openai/package.json" ] && cmp -s "$src/package-lock.json" "$dir/package-lock.json"; then
		return 0
	fi
	command -v node >/dev/null && command -v npm >/dev/null || apt_install nodejs npm
	log "npm ci openai (scripts/openai-sdk)"
	local tmp
	tmp=$(mktemp -d "$TOOLS/.openai-sdk.XXXXXX")
	cp "$src/package.json" "$src/package-lock.json" "$tmp/"
	(cd "$tmp" && npm ci --ignore-scripts --no-audit --no-fund --silent)
	rm -rf "$dir" && mv "$tmp" "$dir"
}

components=("$@")
[ ${#components[@]} -eq 0 ] && components=(test)
for c in "${components[@]}"; do
	case "$c" in
	base) setup_base ;;
	opus) setup_opus ;;
	speech) setup_speech ;;
	browser) setup_browser ;;
	latex) setup_latex ;;
	temporal) setup_temporal ;;
	minio) setup_minio ;;
	onnx) setup_onnx ;;
	quickstart) setup_base; setup_speech; setup_onnx; setup_temporal ;;
	onnx-cuda) setup_onnx_cuda ;;
	kube) setup_kube ;;
	kubeschemas) setup_kubeschemas ;;
	helm) setup_helm ;;
	kubeconform) setup_kubeconform ;;
	staticcheck) setup_staticcheck ;;
	openai-sdk) setup_openai_sdk ;;
	torch) setup_torch ;;
	test) setup_base; setup_speech; setup_browser; setup_latex; setup_onnx; setup_temporal; setup_minio; setup_kube; setup_helm; setup_kubeconform; setup_kubeschemas; setup_staticcheck; setup_openai_sdk ;;
	*) echo "setup: unknown component $c" >&2; exit 2 ;;
	esac
done
echo "$TOOLS"
